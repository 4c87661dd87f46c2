import type { Cluster, Redis } from 'ioredis';

const CLIENT_METHODS = ['hget', 'defineCommand', 'connect', 'on', 'off'] as const;

/**
 * Whether a value looks like an ioredis client (`Redis` or `Cluster`). Checked by shape rather than `instanceof`,
 * so a client built by another copy of ioredis (a nested install) is accepted as well.
 */
export function isIoredisClient(value: unknown): value is Redis | Cluster {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  return typeof c.status === 'string' && CLIENT_METHODS.every((m) => typeof c[m] === 'function');
}

/**
 * Resolves once the app's client is ready. A client created with `lazyConnect` that has not connected yet is
 * connected (its first command would do the same); one that is connecting or reconnecting is waited for. Rejects
 * when the client ends, errors or closes first, or was closed by the app (`quit()`/`disconnect()`). The client is
 * never closed here: the app owns it, and its own reconnect policy goes on.
 */
export async function whenClientReady(client: Redis | Cluster): Promise<void> {
  if (client.status === 'ready') return;
  if (client.status === 'wait') {
    await client.connect();
    return;
  }
  if (client.status === 'end')
    throw new Error('the ioredis client passed as `client` was closed (status end); connect it before the app starts');
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error): void => {
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('close', onClose);
      client.off('end', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReady = (): void => settle();
    const onError = (error: Error): void => settle(error);
    const onClose = (): void =>
      settle(new Error(`the connection closed before it was ready (status ${client.status})`));
    client.on('ready', onReady);
    client.on('error', onError);
    client.on('close', onClose);
    client.on('end', onClose);
  });
}
