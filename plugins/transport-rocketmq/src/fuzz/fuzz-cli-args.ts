import { ConfigurationError } from '@mqkit/core';
import { FUZZ_TARGETS, type FuzzTarget } from './fuzz-corpus';

export interface FuzzCliArgs {
  readonly count: number;
  readonly seed: number;
  readonly start: number;
  readonly targets: readonly FuzzTarget[];
  readonly workers: number;
  /** A worker whose current input makes no progress for this long is reported as a hang. */
  readonly watchdogMs: number;
}

const USAGE =
  'fuzz [--count N] [--seed N] [--start I] [--target frame,record,batch,fastjson] [--workers N] [--watchdog-ms N]';

/** Parses the fuzz CLI's arguments; a bad one is a ConfigurationError naming it. The default seed is printed, so any run replays. */
export function parseFuzzArgs(argv: readonly string[], defaultSeed: number): FuzzCliArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    if (!arg.startsWith('--')) throw issue('argument', arg, USAGE);
    if (eq > 0) values.set(arg.slice(2, eq), arg.slice(eq + 1));
    else values.set(arg.slice(2), argv[++i] ?? '');
  }
  for (const key of values.keys()) {
    if (!['count', 'seed', 'start', 'target', 'workers', 'watchdog-ms'].includes(key))
      throw issue(`--${key}`, values.get(key), USAGE);
  }
  const int = (key: string, fallback: number, min: number, max: number): number => {
    const raw = values.get(key);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw issue(`--${key}`, raw, `an integer in [${min}, ${max}]`);
    return n;
  };
  const targetText = values.get('target');
  const targets = targetText === undefined ? FUZZ_TARGETS : (targetText.split(',') as FuzzTarget[]);
  for (const t of targets) if (!FUZZ_TARGETS.includes(t)) throw issue('--target', targetText, FUZZ_TARGETS.join(', '));
  return {
    count: int('count', 100_000, 1, 1_000_000_000),
    seed: int('seed', defaultSeed, 0, 0xffffffff),
    start: int('start', 0, 0, 0xffffffff),
    targets,
    workers: int('workers', 1, 1, 16),
    watchdogMs: int('watchdog-ms', 10_000, 100, 3_600_000),
  };
}

function issue(option: string, value: unknown, allowed: string): ConfigurationError {
  return new ConfigurationError({ source: 'fuzz', option, value, allowed });
}
