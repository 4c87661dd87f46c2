import { waitFor } from '@mqkit/core/testing';
import type { INestApplicationContext } from '@nestjs/common';
import { MqkitConsumers } from '../module/mqkit-consumers.service';

/**
 * Resolves once the application's mqkit consumers are ready (every group running and rebalanced), so a test can
 * produce knowing the messages will be consumed by this app. Rejects after `timeoutMs` (default 10 s).
 *
 * @example
 * ```ts
 * const app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication();
 * await app.init();
 * await waitUntilConsuming(app);
 * ```
 */
export async function waitUntilConsuming(app: INestApplicationContext, timeoutMs = 10_000): Promise<void> {
  const consumers = app.get(MqkitConsumers, { strict: false });
  await waitFor(() => consumers.ready, { timeoutMs, message: () => `mqkit consumers ready (status: ${JSON.stringify(consumers.status()?.consumers.map((c) => [c.group, c.ready]))})` });
}
