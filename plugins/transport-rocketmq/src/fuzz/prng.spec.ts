import { describe, expect, it } from 'vitest';
import { buildCorpus } from './fuzz-corpus';
import { fuzzInput } from './fuzz-runner';
import { mutate } from './mutators';
import { inputSeed, Prng } from './prng';

describe('fuzz PRNG and inputs', () => {
  it('repeats the same sequence for the same seed and differs for another', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const c = new Prng(43);
    const seqA = Array.from({ length: 8 }, () => a.next());
    expect(Array.from({ length: 8 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 8 }, () => c.next())).not.toEqual(seqA);
  });

  it('spreads int(n) over its range', () => {
    const rng = new Prng(7);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 40000; i++) counts[rng.int(4)]!++;
    for (const n of counts) expect(n).toBeGreaterThan(9000);
  });

  it('rebuilds input i of a run from (seed, i) alone', () => {
    const targets = ['frame', 'record', 'batch', 'fastjson'] as const;
    expect(fuzzInput(5, 1234, targets).input).toEqual(fuzzInput(5, 1234, targets).input);
    expect(inputSeed(5, 1)).not.toBe(inputSeed(5, 2));
  });

  it('mutates without touching the original', () => {
    const corpus = buildCorpus();
    const original = corpus.record[0]!;
    const before = Buffer.from(original);
    const rng = new Prng(3);
    let changed = 0;
    for (let i = 0; i < 200; i++) if (!mutate(original, rng, corpus.record).equals(original)) changed++;
    expect(original).toEqual(before);
    expect(changed).toBeGreaterThan(150);
  });
});
