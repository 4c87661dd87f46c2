import { performance } from 'node:perf_hooks';
import { buildCorpus, FUZZ_TARGETS, type FuzzTarget } from './fuzz-corpus';
import { isTypedDecodeError, runTarget } from './fuzz-target';
import { mutate } from './mutators';
import { inputSeed, Prng } from './prng';

/** One input that broke the rule "decode, or throw a typed error, quickly". */
export interface FuzzFailure {
  readonly seed: number;
  readonly index: number;
  readonly target: FuzzTarget;
  /** The exact input, base64: paste it into regression-cases.ts. */
  readonly input: string;
  readonly kind: 'untyped-error' | 'slow' | 'hang' | 'valid-input-rejected';
  readonly error: string;
}

export interface FuzzReport {
  readonly seed: number;
  readonly count: number;
  /** Inputs that decoded without error. */
  readonly accepted: number;
  /** Inputs rejected with a ProtocolError (or subclass), as they should be. */
  readonly typedErrors: number;
  readonly failures: readonly FuzzFailure[];
  readonly elapsedMs: number;
  /** The slowest single input: a hang or a quadratic path shows here. */
  readonly maxInputMs: number;
}

export interface FuzzOptions {
  readonly seed: number;
  readonly count: number;
  /** Start at this input index (to replay one input: `{ start: i, count: 1 }`). Default 0. */
  readonly start?: number;
  readonly targets?: readonly FuzzTarget[];
  /** An input slower than this is a failure. Default 2000 ms. */
  readonly slowMs?: number;
  /** Called after each input with its index (progress, watchdog). */
  readonly onInput?: (index: number) => void;
}

/** Every 16th input is fed unmutated: the corpus itself must always decode. */
const UNMUTATED_EVERY = 16;

/** The input `index` of a run: target, bytes and the PRNG that drives its chunking. Same seed, same input. */
export function fuzzInput(seed: number, index: number, targets: readonly FuzzTarget[], corpus = buildCorpus()) {
  const rng = new Prng(inputSeed(seed, index));
  const target = targets[index % targets.length]!;
  const seeds = corpus[target];
  const original = rng.pick(seeds);
  const mutated = index % UNMUTATED_EVERY !== 0;
  const input = mutated ? mutate(original, rng, [...seeds, ...corpus.record]) : original;
  return { target, input, rng, mutated };
}

/**
 * Runs `count` mutated inputs through the decoders. Each input comes from (seed, index) alone, so any failure
 * replays with the same seed and index. A failure is an error that is not a ProtocolError, an input slower than
 * `slowMs`, or an unmutated corpus input that does not decode.
 */
export function runFuzz(options: FuzzOptions): FuzzReport {
  const corpus = buildCorpus();
  const targets = options.targets ?? FUZZ_TARGETS;
  const slowMs = options.slowMs ?? 2000;
  const start = options.start ?? 0;
  const failures: FuzzFailure[] = [];
  let accepted = 0;
  let typedErrors = 0;
  let maxInputMs = 0;
  const began = performance.now();
  for (let index = start; index < start + options.count; index++) {
    const { target, input, rng, mutated } = fuzzInput(options.seed, index, targets, corpus);
    const failure = (kind: FuzzFailure['kind'], error: unknown): FuzzFailure => ({
      seed: options.seed,
      index,
      target,
      input: input.toString('base64'),
      kind,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    const t0 = performance.now();
    try {
      runTarget(target, input, rng);
      accepted++;
    } catch (error) {
      if (!isTypedDecodeError(error)) failures.push(failure('untyped-error', error));
      else if (!mutated) failures.push(failure('valid-input-rejected', error));
      else typedErrors++;
    }
    const ms = performance.now() - t0;
    if (ms > maxInputMs) maxInputMs = ms;
    if (ms > slowMs) failures.push(failure('slow', `${ms.toFixed(0)} ms`));
    options.onInput?.(index);
  }
  return {
    seed: options.seed,
    count: options.count,
    accepted,
    typedErrors,
    failures,
    elapsedMs: performance.now() - began,
    maxInputMs,
  };
}
