import type { INestApplicationContext } from '@nestjs/common';
import { MqkitConsumers } from '../module/mqkit-consumers.service';

/**
 * Resolves once the application's mqkit consumers are ready (every group running and rebalanced: the core app's
 * `ready()`), so a test can produce knowing the messages will be consumed by this app. Call it after `app.init()`.
 * Rejects after `timeoutMs` (default 10 s) with a TimeoutError naming each group that is not ready.
 *
 * @example
 * ```ts
 * const app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication();
 * await app.init();
 * await waitUntilConsuming(app);
 * ```
 */
export async function waitUntilConsuming(app: INestApplicationContext, timeoutMs = 10_000): Promise<void> {
  await app.get(MqkitConsumers, { strict: false }).app.ready({ timeoutMs });
}
