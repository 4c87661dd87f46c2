import type { ConsumerAppOptions, ConsumerOptions } from '@mqkit/core';

/** `@EventPattern` extras: per-handler consumer options (the topic is the pattern). */
export type MqkitEventExtras = Omit<Partial<ConsumerOptions>, 'topic' | 'batch'>;

/** Options of {@link MqkitServer}: createConsumerApp's, minus `consumers` (the `@EventPattern` handlers are). */
export interface MqkitServerOptions extends Omit<ConsumerAppOptions, 'consumers'> {
  /** The consumer group of every handler; `@EventPattern(topic, { group })` overrides it per handler. */
  readonly group: string;
  /** Consumer options for every handler; `@EventPattern(topic, extras)` extras override them. */
  readonly consumer?: MqkitEventExtras;
  /** How long `close()` waits for running handler calls (default 30 s). */
  readonly stopTimeoutMs?: number;
}

/** Transport id of {@link MqkitServer}: `@EventPattern('orders', MQKIT_TRANSPORT)` binds a handler to it alone. */
export const MQKIT_TRANSPORT: unique symbol = Symbol.for('mqkit:transport');
