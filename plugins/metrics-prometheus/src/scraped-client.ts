import type { ConsumerStatus, MessageQueue } from '@mqkit/core';

/** One client (consumer app or producer) whose figures a scrape reads: what its PluginContext gave the plugin. */
export interface ScrapedClient {
  /** Its RocketMQ namespace, left out of the group and topic labels. */
  readonly namespace: string | undefined;
  /** `PluginContext.consumers`: read at every scrape, never cached. */
  consumers(): readonly ConsumerStatus[];
  /** The broker's max offset now (the transport's BrokerOffsets role); absent for a client without one. */
  readonly maxOffset?: (mq: MessageQueue) => Promise<number>;
}
