import {
  Consumer,
  createConsumerApp,
  createProducer,
  type ConsumerApp,
  type ConsumerAppOptions,
  type ConsumerOptions,
  type ConsumeContext,
  type Message,
} from '@mqkit/core';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { randomUUID } from 'node:crypto';

export type Handler = (message: Message<{ seq: number }>, ctx: ConsumeContext) => unknown;
export type BatchHandler = (messages: Message<{ seq: number }>[], ctx: ConsumeContext) => unknown;

/** A unique name, so tests never share topics or groups. */
export function unique(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** A @Consumer class whose handle() calls the given function (arrays of messages when `batch: true`). */
export function consumerClass(options: ConsumerOptions & { batch: true }, handle: BatchHandler): new () => object;
export function consumerClass(options: ConsumerOptions & { batch?: false }, handle: Handler): new () => object;
export function consumerClass(options: ConsumerOptions, handle: Handler | BatchHandler): new () => object {
  class TestConsumer {
    handle(input: never, ctx: ConsumeContext): unknown {
      return (handle as (i: unknown, c: ConsumeContext) => unknown)(input, ctx);
    }
  }
  Consumer(options)(TestConsumer);
  return TestConsumer;
}

/** Every delivery by sequence number, across the instances of a test. */
export class Deliveries {
  readonly counts = new Map<number, number>();
  total = 0;

  record(seq: number): void {
    this.total++;
    this.counts.set(seq, (this.counts.get(seq) ?? 0) + 1);
  }

  get unique(): number {
    return this.counts.size;
  }

  get duplicates(): number {
    return this.total - this.counts.size;
  }

  /** Sequence numbers in [0, n) never delivered. */
  missing(n: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < n; i++) if (!this.counts.has(i)) out.push(i);
    return out;
  }
}

/** Tracks apps and brokers of a test and stops them all. */
export class Harness {
  readonly broker: EmbeddedBroker;
  private readonly apps: ConsumerApp[] = [];

  constructor(broker?: EmbeddedBroker) {
    this.broker = broker ?? fastBroker();
  }

  async app(
    consumers: ConsumerAppOptions['consumers'],
    options: Partial<ConsumerAppOptions> = {},
  ): Promise<ConsumerApp> {
    const app = await createConsumerApp({
      transport: memoryTransport({ broker: this.broker }),
      consumers,
      profile: 'fast',
      ...options,
    });
    this.apps.push(app);
    await app.start();
    return app;
  }

  /** Sends `count` JSON messages `{ seq }` (seq from `from`) and resolves when all are stored. */
  async produce(
    topic: string,
    count: number,
    options: { from?: number; tags?: (seq: number) => string | undefined; size?: number } = {},
  ): Promise<void> {
    const producer = await createProducer({
      transport: memoryTransport({ broker: this.broker }),
      group: unique('producer'),
    });
    const pad = options.size ? 'x'.repeat(options.size) : undefined;
    try {
      const from = options.from ?? 0;
      // A FIFO window: awaiting the oldest send is O(1), where racing all of them would attach a reaction to every
      // pending send on each iteration.
      const window: Promise<unknown>[] = [];
      for (let seq = from; seq < from + count; seq++) {
        window.push(
          producer.send({ topic, payload: pad ? { seq, pad } : { seq }, tags: options.tags?.(seq), keys: `k${seq}` }),
        );
        if (window.length >= 512) await window.shift();
      }
      await Promise.all(window);
    } finally {
      await producer.stop();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.apps.map((a) => a.stop({ timeoutMs: 5_000 })));
    this.broker.close();
  }
}
