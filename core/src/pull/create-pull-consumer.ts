import { PullConsumer } from './pull-consumer';
import { resolvePullConsumerOptions, type PullConsumerOptions } from './pull-consumer-options';

/**
 * Creates and starts a pull consumer; every option is checked first (one ConfigurationError lists each problem).
 *
 * @example
 * ```ts
 * const consumer = await createPullConsumer({ transport: rocketmqTransport({ nameServer }), group: 'batch' });
 * await consumer.subscribe('orders', { sql: "region = 'eu'" });
 * const messages = await consumer.poll({ timeoutMs: 1_000 });
 * ```
 */
export async function createPullConsumer(options: PullConsumerOptions): Promise<PullConsumer> {
  const consumer = PullConsumer.create(options, resolvePullConsumerOptions(options));
  await consumer.start();
  return consumer;
}
