import {
  IllegalStateError,
  createProducer,
  type LocalTransaction,
  type Message,
  type OutgoingMessage,
  type Producer,
  type RequestOptions,
  type StandaloneProducer,
  type TransactionSendResult,
  type TransactionState,
} from '@mqkit/core';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MQKIT_MODULE_OPTIONS, type MqkitModuleOptions } from '../module/mqkit-module-options';

/**
 * Core's producer as an injectable: configured by `MqkitModule.forRoot({ producer: { group } })`, connected at
 * `onModuleInit` (so it works in other providers' `onApplicationBootstrap`, before the consumers start) and
 * stopped at `onApplicationShutdown`, after the consumers drained, so handlers that send still can.
 *
 * @example
 * ```ts
 * @Injectable()
 * class Checkout {
 *   constructor(private readonly producer: MqkitProducer) {}
 *   placed(order: Order) { return this.producer.send({ topic: 'orders', payload: order, tags: 'created', keys: order.id }); }
 * }
 * ```
 */
@Injectable()
export class MqkitProducer implements OnModuleInit, OnApplicationShutdown {
  private standalone: StandaloneProducer | undefined;

  constructor(@Inject(MQKIT_MODULE_OPTIONS) private readonly options: MqkitModuleOptions) {}

  async onModuleInit(): Promise<void> {
    const { producer, transport, profile, instanceName, clientIp, container, plugins } = this.options;
    if (!producer || this.standalone) return;
    // Its own client id: with a fixed instanceName the consumer app and the producer must not share one. The
    // module's plugins are registered here too, as an app's own producer shares the app's (metrics, tracing).
    this.standalone = await createProducer({
      ...producer,
      transport,
      profile,
      clientIp,
      container,
      plugins,
      instanceName: instanceName === undefined ? undefined : `${instanceName}-producer`,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    const standalone = this.standalone;
    this.standalone = undefined;
    await standalone?.stop();
  }

  /** The started core producer. */
  get producer(): Producer {
    if (!this.standalone) {
      throw new IllegalStateError(
        this.options.producer
          ? 'MqkitProducer is not connected: it starts at onModuleInit and stops at onApplicationShutdown'
          : 'MqkitProducer has no options: pass `producer: { group }` to MqkitModule.forRoot / forRootAsync',
      );
    }
    return this.standalone.producer;
  }

  /** A synchronous send with RocketMQ's retries; resolves with the broker's answer. */
  send(...args: Parameters<Producer['send']>): ReturnType<Producer['send']> {
    return this.producer.send(...args);
  }

  /** One attempt, no answer (RocketMQ's sendOneway). */
  sendOneway(...args: Parameters<Producer['sendOneway']>): ReturnType<Producer['sendOneway']> {
    return this.producer.sendOneway(...args);
  }

  /** Several messages of one topic, split into batches that fit; one result per message. */
  sendBatch(...args: Parameters<Producer['sendBatch']>): ReturnType<Producer['sendBatch']> {
    return this.producer.sendBatch(...args);
  }

  /**
   * A transactional send (needs the producer option transactionListener). Generic as core's, not
   * `Parameters<Producer['sendInTransaction']>`: that would fix `S` to TransactionState, and an async callback's
   * `return 'COMMIT_MESSAGE'` would widen to `Promise<string>` again.
   */
  sendInTransaction<T, const S extends TransactionState = TransactionState>(
    message: OutgoingMessage<T>,
    local: LocalTransaction<T, S>,
  ): Promise<TransactionSendResult> {
    return this.producer.sendInTransaction(message, local);
  }

  /**
   * Request-reply (RocketMQ's `request`): sends and resolves with the reply of a `reply: true` consumer (or a
   * `@MessagePattern` handler), or rejects with `RequestTimeoutError`. Generic, so the reply keeps its type.
   */
  request<T, R = unknown>(message: OutgoingMessage<T>, options?: RequestOptions): Promise<Message<R>> {
    return this.producer.request<T, R>(message, options);
  }
}
