import { Redis } from 'ioredis';

/** How to reach a harness server: its password (`--requirepass`) and, for a TLS server, the CA to trust. */
export interface RedisAuth {
  readonly password?: string;
  readonly tls?: { readonly ca: string };
}

/**
 * One command on a fresh, non-retrying connection to 127.0.0.1:port (with a password when given) (the harness's probes: PING, INFO,
 * CLUSTER INFO). Rejects at once when nothing listens; never leaves a reconnecting client behind.
 */
export async function redisCall(
  target: number | ({ readonly port: number } & RedisAuth),
  command: string,
  ...args: (string | number)[]
): Promise<unknown> {
  const { port, password, tls } =
    typeof target === 'number' ? { port: target, password: undefined, tls: undefined } : target;
  const client = new Redis({
    host: '127.0.0.1',
    port,
    password,
    tls: tls ? { ca: tls.ca } : undefined,
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    disableClientInfo: true,
  });
  // A refused connection is reported by the rejected connect(); without a listener ioredis would also log it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(command, ...args);
  } finally {
    client.disconnect();
  }
}

/** `INFO <section>` parsed into name → value lines (`cmdstat_evalsha` → `calls=3,usec=...`). */
export async function redisInfo(
  target: number | ({ readonly port: number } & RedisAuth),
  section: string,
): Promise<Map<string, string>> {
  const text = String(await redisCall(target, 'INFO', section));
  const out = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}

/**
 * Requests per command from `INFO commandstats` (`evalsha` → 12): executed calls plus rejected and failed ones (a
 * MOVED redirect counts as rejected), so a redirected request still shows as a round trip. Note that commands a
 * script runs inside Redis (its HGET/HSET) are counted too.
 */
export async function commandCalls(port: number, auth: RedisAuth = {}): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [name, value] of await redisInfo({ port, ...auth }, 'commandstats')) {
    if (!name.startsWith('cmdstat_')) continue;
    let n = 0;
    for (const field of ['calls', 'rejected_calls', 'failed_calls']) {
      const m = new RegExp(`(?:^|,)${field}=(\\d+)`).exec(value);
      if (m) n += Number(m[1]);
    }
    out.set(name.slice('cmdstat_'.length), n);
  }
  return out;
}
