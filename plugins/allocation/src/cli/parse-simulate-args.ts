import { ConfigurationError } from '@mqkit/core';
import { DEFAULT_SIMULATION, type SimulationOptions } from '../simulator/simulation-types';

export interface SimulateCommand {
  readonly options: SimulationOptions;
  readonly json: boolean;
  readonly svg?: string;
}

export const SIMULATE_USAGE = `Usage: mqkit-allocation simulate [options]

Compares every allocation strategy that needs no configuration over a seeded random sequence of joins and leaves.

Options:
  --seed N          seed of the membership walk (default ${DEFAULT_SIMULATION.seed}); same seed, same results
  --json            print one JSON document on stdout and nothing else
  --svg FILE        also write a chart of moved / lower bound per strategy to FILE
  --queues LIST     queue counts, comma-separated (default ${DEFAULT_SIMULATION.queueCounts.join(',')})
  --brokers N       brokers the queues are spread over (default ${DEFAULT_SIMULATION.brokers})
  --members A-B     group sizes (default ${DEFAULT_SIMULATION.minMembers}-${DEFAULT_SIMULATION.maxMembers})
  --steps N         joins and leaves per queue count (default ${DEFAULT_SIMULATION.steps})
  --help            this text
`;

function positiveInt(option: string, raw: string | undefined, min = 1): number {
  const value = Number(raw);
  if (raw === undefined || !Number.isSafeInteger(value) || value < min) {
    throw new ConfigurationError({
      source: 'mqkit-allocation simulate',
      option,
      value: raw,
      allowed: `an integer >= ${min}`,
    });
  }
  return value;
}

/** Parses `simulate`'s arguments (after the command word); bad input is a ConfigurationError naming the option. */
export function parseSimulateArgs(args: readonly string[]): SimulateCommand | 'help' {
  let options: SimulationOptions = { ...DEFAULT_SIMULATION };
  let json = false;
  let svg: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string | undefined => args[++i];
    switch (arg) {
      case '--help':
      case '-h':
        return 'help';
      case '--json':
        json = true;
        break;
      case '--svg': {
        const file = value();
        if (!file || file.startsWith('--'))
          throw new ConfigurationError({
            source: 'mqkit-allocation simulate',
            option: '--svg',
            value: file,
            allowed: 'a file name',
          });
        svg = file;
        break;
      }
      case '--seed':
        options = { ...options, seed: positiveInt('--seed', value(), 0) };
        break;
      case '--brokers':
        options = { ...options, brokers: positiveInt('--brokers', value()) };
        break;
      case '--steps':
        options = { ...options, steps: positiveInt('--steps', value()) };
        break;
      case '--queues': {
        const raw = value();
        options = { ...options, queueCounts: (raw ?? '').split(',').map((q) => positiveInt('--queues', q)) };
        break;
      }
      case '--members': {
        const raw = value();
        const match = /^(\d+)-(\d+)$/.exec(raw ?? '');
        const min = Number(match?.[1]);
        const max = Number(match?.[2]);
        if (!match || min < 1 || max <= min)
          throw new ConfigurationError({
            source: 'mqkit-allocation simulate',
            option: '--members',
            value: raw,
            allowed: 'A-B with 1 <= A < B, e.g. 2-12',
          });
        options = { ...options, minMembers: min, maxMembers: max };
        break;
      }
      default:
        throw new ConfigurationError({
          source: 'mqkit-allocation simulate',
          option: arg,
          value: arg,
          allowed: 'one of --seed, --json, --svg, --queues, --brokers, --members, --steps, --help',
        });
    }
  }
  return { options, json, svg };
}
