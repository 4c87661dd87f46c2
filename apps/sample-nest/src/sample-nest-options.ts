import { parseArgs } from 'node:util';

export interface SampleNestOptions {
  /** Orders to produce. */
  readonly messages: number;
  /** Simulated work per order, in ms (the handler awaits it with the call's abort signal). */
  readonly workMs: number;
  /** Keep running after every order shipped, until SIGTERM or SIGINT (Nest's shutdown hooks drain and exit). */
  readonly serve: boolean;
  /** Print the progress line (default: on). */
  readonly progress: boolean;
  /** Name server of a real RocketMQ cluster (`host:port`, `;`-separated for several); the embedded broker when absent. */
  readonly namesrv: string | undefined;
}

const USAGE =
  'usage: npm run start:nest -- [--messages N] [--work-ms MS] [--serve] [--namesrv host:port] [--no-progress]';

export class UsageError extends Error {}

export function parseSampleNestArgs(argv: readonly string[]): SampleNestOptions {
  const parse = () =>
    parseArgs({
      args: [...argv],
      options: {
        messages: { type: 'string', default: '2000' },
        'work-ms': { type: 'string', default: '0' },
        serve: { type: 'boolean', default: false },
        namesrv: { type: 'string' },
        'no-progress': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    });
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse());
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) throw new UsageError(USAGE);
  const int = (name: string, raw: string, min: number, max: number): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`--${name} must be an integer in [${min}, ${max}] (got ${raw})\n${USAGE}`);
    return n;
  };
  return {
    messages: int('messages', values.messages, 1, 1_000_000),
    workMs: int('work-ms', values['work-ms'], 0, 60_000),
    serve: values.serve,
    progress: !values['no-progress'],
    namesrv: values.namesrv,
  };
}
