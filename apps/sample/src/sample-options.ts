import { parseArgs } from 'node:util';

export interface SampleOptions {
  /** Messages to produce. */
  readonly messages: number;
  /** Consumer instances at start (a further one joins mid-run, one leaves mid-run). */
  readonly instances: number;
  /** Body size in bytes. */
  readonly size: number;
  /** Produce rate, messages per second (the run lasts about messages / rate seconds). */
  readonly rate: number;
  /** Name server of a real RocketMQ cluster; the embedded broker when absent. */
  readonly namesrv: string | undefined;
  /** Print the progress line (default: on). */
  readonly progress: boolean;
}

const USAGE = `usage: npm start -- [--messages N] [--instances N] [--size BYTES] [--rate PER_SEC] [--namesrv host:port] [--no-progress]`;

export function parseSampleArgs(argv: readonly string[]): SampleOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      messages: { type: 'string', default: '20000' },
      instances: { type: 'string', default: '3' },
      size: { type: 'string', default: '256' },
      rate: { type: 'string', default: '4000' },
      namesrv: { type: 'string' },
      'no-progress': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) throw new UsageError(USAGE);
  const int = (name: string, raw: string, min: number, max: number): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`--${name} must be an integer in [${min}, ${max}] (got ${raw})\n${USAGE}`);
    return n;
  };
  return {
    messages: int('messages', values.messages!, 1, 10_000_000),
    instances: int('instances', values.instances!, 2, 64),
    size: int('size', values.size!, 32, 4 * 1024 * 1024),
    rate: int('rate', values.rate!, 1, 1_000_000),
    namesrv: values.namesrv,
    progress: !values['no-progress'],
  };
}

export class UsageError extends Error {}
