import { createServer } from 'node:net';
import { randomInt } from 'node:crypto';
import { RocketMqHarnessError } from './rocketmq-harness.error';

/** Resolves true when `port` can be bound on every interface (the broker's HA port always binds 0.0.0.0). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Picks a random base port in [low, high) such that every port at base+offset is free, e.g. offsets
 * [-2, 0, 1] for a broker (listenPort − 2 is its "fast" server, + 1 its HA server). Ports already handed out
 * in this process are avoided too. Random so parallel runs rarely collide; below Linux's ephemeral range (32768+)
 * so no outgoing connection takes a port between this check and the broker's bind.
 */
export async function findFreePortGroup(
  offsets: readonly number[],
  taken: Set<number> = new Set(),
  low = 20_000,
  high = 32_000,
): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = randomInt(low, high);
    const ports = offsets.map((offset) => base + offset);
    if (ports.some((port) => taken.has(port))) continue;
    let free = true;
    for (const port of ports) {
      if (!(await isPortFree(port))) {
        free = false;
        break;
      }
    }
    if (free) {
      for (const port of ports) taken.add(port);
      return base;
    }
  }
  throw new RocketMqHarnessError(
    'port',
    `found no free ports at offsets ${offsets.join(',')} in [${low}, ${high}) after 200 tries`,
  );
}
