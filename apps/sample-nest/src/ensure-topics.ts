import { createConsumerApp, type TransportPlugin } from '@mqkit/core';

/**
 * Creates the sample's topics on a real cluster (whose brokers usually run with autoCreateTopicEnable=false)
 * through the transport's TopicAdmin role, from a short-lived app with no consumers.
 */
export async function ensureTopics(
  transport: TransportPlugin,
  topics: readonly string[],
  queues: number,
): Promise<void> {
  const admin = await createConsumerApp({ transport, consumers: [] });
  await admin.start();
  try {
    const topicAdmin = admin.transport.topicAdmin!;
    for (const topic of topics) await topicAdmin.createTopic({ topic, queues });
  } finally {
    await admin.stop({ timeoutMs: 5_000 });
  }
}
