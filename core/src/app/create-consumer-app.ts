import type { ConsumerAppOptions } from './app-options';
import { ConsumerApp } from './consumer-app';

/**
 * Builds an app; `start()` validates and starts it.
 *
 * @example
 * ```ts
 * const app = await createConsumerApp({ transport: memoryTransport(), consumers: [OrderConsumer] });
 * await app.start();
 * // ...
 * const report = await app.stop({ timeoutMs: 10_000 });
 * ```
 */
export async function createConsumerApp(options: ConsumerAppOptions): Promise<ConsumerApp> {
  return new ConsumerApp(options);
}
