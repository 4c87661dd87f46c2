import type { ChaosClient } from './chaos-group';
import { type ConsumeMode, modesOf, SCENARIOS, type Scenario } from './scenarios';
import { randomSeed, seedsFrom } from './timeline';

/** What `npm run bench -- chaos ...` asked for. */
export interface ChaosArgs {
  /** The scenario named (id or name), if one was. */
  readonly wanted?: string;
  readonly scenarios: readonly Scenario[];
  /** The client named by --client, if one was. */
  readonly client?: ChaosClient;
  readonly clients: readonly ChaosClient[];
  /** The mode named by --mode, if one was. */
  readonly mode?: ConsumeMode;
  /** Each scenario's runs: scenario × mode, ORDERLY only for the scenarios that move queues. */
  readonly variants: readonly { readonly scenario: Scenario; readonly mode: ConsumeMode }[];
  /** --seed, or a random one: always printed, so any run can be replayed. */
  readonly seed: number;
  readonly seedGiven: boolean;
  /** --seeds K: the first seed and K - 1 drawn from it. */
  readonly seeds: readonly number[];
  readonly exclusiveHandoff: boolean;
  readonly trace: boolean;
}

const USAGE =
  'chaos [scenario] [--client mqkit|java] [--mode concurrently|orderly] [--seed N] [--seeds K] [--exclusive-handoff] [--trace]';

/** Parses the chaos case's arguments; throws on anything it does not know. */
export function parseChaosArgs(args: readonly string[], newSeed: () => number = randomSeed): ChaosArgs {
  let wanted: string | undefined;
  let client: ChaosClient | undefined;
  let mode: ConsumeMode | undefined;
  let seed: number | undefined;
  let count = 1;
  let exclusiveHandoff = false;
  let trace = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined) throw new Error(`${arg} needs a value; usage: ${USAGE}`);
      return next;
    };
    const integer = (text: string, min: number, max: number): number => {
      const n = Number(text);
      if (!/^\d+$/.test(text) || n < min || n > max) throw new Error(`${arg} takes an integer in ${min}..${max}`);
      return n;
    };
    switch (arg) {
      case '--client': {
        const v = value();
        if (v !== 'mqkit' && v !== 'java') throw new Error('--client takes mqkit or java');
        client = v;
        break;
      }
      case '--mode': {
        const v = value().toUpperCase();
        if (v !== 'CONCURRENTLY' && v !== 'ORDERLY') throw new Error('--mode takes concurrently or orderly');
        mode = v;
        break;
      }
      case '--seed':
        seed = integer(value(), 0, 2 ** 32 - 1);
        break;
      case '--seeds':
        count = integer(value(), 1, 1000);
        break;
      case '--exclusive-handoff':
        exclusiveHandoff = true;
        break;
      case '--trace':
        trace = true;
        break;
      default:
        if (arg.startsWith('--') || wanted !== undefined) throw new Error(`unexpected ${arg}; usage: ${USAGE}`);
        wanted = arg;
    }
  }
  const scenarios = wanted ? SCENARIOS.filter((s) => s.id === wanted || s.name === wanted) : SCENARIOS;
  if (scenarios.length === 0)
    throw new Error(
      `unknown chaos scenario ${wanted}; known: ${SCENARIOS.map((s) => `${s.id} (${s.name})`).join(', ')}`,
    );
  const variants = scenarios.flatMap((scenario) =>
    modesOf(scenario)
      .filter((m) => mode === undefined || m === mode)
      .map((m) => ({ scenario, mode: m })),
  );
  if (variants.length === 0) throw new Error(`scenario ${wanted} has no ${mode} variant (its faults move no queues)`);
  const first = seed ?? newSeed();
  return {
    ...(wanted !== undefined ? { wanted } : {}),
    scenarios,
    ...(client ? { client } : {}),
    clients: client ? [client] : ['mqkit', 'java'],
    ...(mode ? { mode } : {}),
    variants,
    seed: first,
    seedGiven: seed !== undefined,
    seeds: seedsFrom(first, count),
    exclusiveHandoff,
    trace,
  };
}

/**
 * The name a run that measures only part of the case goes under (a scenario, a client, a mode, exclusive handoff):
 * apps/bench/results/trials/chaos-<name>.json, so the reliability table keeps reading the full run's file. Undefined
 * for a full run, whatever its seeds.
 */
export function partialRunName(parsed: ChaosArgs): string | undefined {
  const parts = [
    parsed.wanted,
    parsed.client,
    parsed.mode?.toLowerCase(),
    parsed.exclusiveHandoff ? 'exclusive-handoff' : undefined,
  ].filter((p): p is string => p !== undefined);
  return parts.length === 0 ? undefined : parts.join('-');
}
