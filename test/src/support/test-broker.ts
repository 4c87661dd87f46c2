import {
  createConsumerApp,
  createProducer,
  createPullConsumer,
  type ConsumerApp,
  type ConsumerAppOptions,
  type MessageQueue,
  type PullConsumer,
  type PullConsumerOptions,
  type SendResult,
  type StandaloneProducer,
  type StandaloneProducerOptions,
  type TransportPlugin,
} from '@mqkit/core';
import { sendSeqs, uniqueName, waitFor, type SendSeqsOptions } from '@mqkit/core/testing';

/** The two brokers every scenario runs on. */
export type BrokerKind = 'embedded' | 'rocketmq';

/**
 * Where a test runs: the embedded broker of @mqkit/transport-memory (`Harness`) or the run's real RocketMQ cluster
 * (`RocketMqHarness`). It creates topics, and makes apps, pull consumers and producers on its broker that
 * `close()` stops; a scenario written against this class runs on both (see scenarios.ts).
 */
export abstract class TestBroker {
  abstract readonly kind: BrokerKind;
  /** How long a condition may take (a real cluster on a loaded box is slower). */
  abstract readonly timeoutMs: number;
  /** The names of the brokers a topic is created on. */
  abstract readonly brokerNames: readonly string[];
  /** Sends in flight at most in `produce()`, unless it is given another window. */
  protected abstract readonly sendWindow: number;
  private readonly stops: (() => Promise<unknown>)[] = [];
  private readonly appStops: (() => Promise<unknown>)[] = [];
  private admin: Promise<ConsumerApp> | undefined;

  /** A transport to this broker. */
  abstract transport(): TransportPlugin;

  /**
   * Creates `topic` with `queues` queues on every broker, or on the listed ones (or grows it to that many), and
   * resolves once it is routed.
   */
  abstract createTopic(topic: string, queues: number, brokers?: readonly string[]): Promise<void>;

  /** What a producer of `produce()` and `producer()` starts from. */
  protected producerDefaults(): Partial<StandaloneProducerOptions> {
    return {};
  }

  /** Releases the broker itself once every client stopped. */
  protected async closeBroker(): Promise<void> {}

  /** Creates and starts an app on the broker with the fast profile. */
  async app(
    consumers: ConsumerAppOptions['consumers'],
    options: Partial<ConsumerAppOptions> = {},
  ): Promise<ConsumerApp> {
    const app = await this.createApp(consumers, options);
    await app.start();
    return app;
  }

  /** Creates an app on the broker with the fast profile, not started yet (to listen from before its start). */
  async createApp(
    consumers: ConsumerAppOptions['consumers'],
    options: Partial<ConsumerAppOptions> = {},
  ): Promise<ConsumerApp> {
    const app = await createConsumerApp({ transport: this.transport(), consumers, profile: 'fast', ...options });
    this.appStops.push(() => app.stop({ timeoutMs: 5_000 }));
    return app;
  }

  /** Creates a pull consumer with the fast profile and its own instance name. */
  async pullConsumer(options: Omit<PullConsumerOptions, 'transport'>): Promise<PullConsumer> {
    const consumer = await createPullConsumer({
      transport: this.transport(),
      profile: 'fast',
      instanceName: uniqueName('pull'),
      ...options,
    });
    this.stops.push(() => consumer.close());
    return consumer;
  }

  /** Creates a producer with a fresh group. */
  async producer(options: Partial<StandaloneProducerOptions> = {}): Promise<StandaloneProducer> {
    const producer = await createProducer({
      transport: this.transport(),
      group: uniqueName('producer'),
      ...this.producerDefaults(),
      ...options,
    });
    this.stops.push(() => producer.stop());
    return producer;
  }

  /**
   * Sends `count` JSON messages `{ seq }` (seq from `from`, key `k<seq>`) through a producer of its own; resolves
   * once all are stored, with their results in seq order.
   */
  async produce(topic: string, count: number, options: SendSeqsOptions = {}): Promise<SendResult[]> {
    const producer = await createProducer({
      transport: this.transport(),
      group: uniqueName('producer'),
      ...this.producerDefaults(),
    });
    try {
      return await sendSeqs(producer, topic, count, { window: this.sendWindow, ...options });
    } finally {
      await producer.stop();
    }
  }

  /** An app with no consumers: its container holds the transport's roles (TopicAdmin, OffsetAdmin, QueueLocks...). */
  adminApp(): Promise<ConsumerApp> {
    this.admin ??= (async () => {
      const app = await createConsumerApp({
        transport: this.transport(),
        consumers: [],
        profile: 'fast',
        instanceName: uniqueName('admin'),
      });
      this.stops.push(() => app.stop({ timeoutMs: 5_000 }));
      await app.start();
      return app;
    })();
    return this.admin;
  }

  /** The group's offset of the queue as the broker stores it (-1 when it has none). */
  async committedOffset(group: string, mq: MessageQueue): Promise<number> {
    return (await this.adminApp()).transport.offsets.queryConsumerOffset(group, mq);
  }

  /**
   * Resolves once the brokers hold, for every one of the topic's `queues` queues, the group's committed offset at
   * the queue's end. Members commit on their persist interval, after their own books say done; an admin reset
   * issued before that is refused by a broker with no offset of the group ("THe consumer group <g> not exist"), or
   * undone by the late commit.
   */
  async brokersCommitted(group: string, topic: string, queues: number): Promise<void> {
    const admin = (await this.adminApp()).transport.clusterAdmin!;
    await waitFor(
      async () => {
        const stats = (await admin.consumeStats(group)).filter((s) => s.mq.topic === topic);
        return stats.length === queues && stats.every((s) => s.consumerOffset === s.brokerOffset);
      },
      {
        timeoutMs: 20_000,
        intervalMs: 200,
        message: `the brokers hold ${group}'s committed offset of every queue of ${topic}`,
      },
    );
  }

  /** How many messages the topic's queues hold (0 when it has no route). */
  async storedCount(topic: string): Promise<number> {
    const { routes, offsets } = (await this.adminApp()).transport;
    const queues = await routes.subscribeQueues(topic).catch(() => []);
    let count = 0;
    for (const mq of queues) count += (await offsets.maxOffset(mq)) - (await offsets.minOffset(mq));
    return count;
  }

  /** Runs `step` at close(), after the apps stopped (steps run newest first, with the other clients' stops). */
  onClose(step: () => Promise<unknown>): void {
    this.stops.push(step);
  }

  /** Stops the apps (together), then the pull consumers, producers and admin app (newest first), then the broker. */
  async close(): Promise<void> {
    await Promise.all(this.appStops.splice(0).map((stop) => stop()));
    for (const stop of this.stops.splice(0).reverse()) await stop();
    this.admin = undefined;
    await this.closeBroker();
  }
}
