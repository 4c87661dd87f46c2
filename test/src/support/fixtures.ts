import { Consumer, type ConsumeContext, type ConsumerOptions, type Message, type TransportPlugin } from '@mqkit/core';
import { memoryTransport, type EmbeddedBroker, type EmbeddedBrokerOptions } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import type { BrokerSetup } from './scenarios';
import { TestBroker } from './test-broker';

export type Handler = (message: Message<{ seq: number }>, ctx: ConsumeContext) => unknown;
export type BatchHandler = (messages: Message<{ seq: number }>[], ctx: ConsumeContext) => unknown;

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

/** A test's embedded broker (`fastBroker()` unless given one) and what is made on it; `close()` stops all of it. */
export class Harness extends TestBroker {
  readonly kind = 'embedded';
  readonly timeoutMs = 20_000;
  protected readonly sendWindow = 512;
  readonly broker: EmbeddedBroker;

  constructor(broker?: EmbeddedBroker) {
    super();
    this.broker = broker ?? fastBroker();
  }

  get brokerNames(): readonly string[] {
    return this.broker.brokerNames;
  }

  transport(): TransportPlugin {
    return memoryTransport({ broker: this.broker });
  }

  async createTopic(topic: string, queues: number, brokers?: readonly string[]): Promise<void> {
    this.broker.createTopic({ topic, queues, brokers });
  }

  protected override async closeBroker(): Promise<void> {
    this.broker.close();
  }
}

/** The scenarios' embedded broker: a fresh one per test, with two brokers like the real cluster's. */
export function embeddedBroker(options: EmbeddedBrokerOptions = {}): BrokerSetup {
  return {
    kind: 'embedded',
    label: 'the embedded broker',
    open: async () => new Harness(fastBroker({ brokerNames: ['broker-a', 'broker-b'], ...options })),
  };
}
