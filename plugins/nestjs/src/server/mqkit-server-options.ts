import type { ConsumerAppOptions, ConsumerOptions } from '@mqkit/core';

/**
 * `@EventPattern` and `@MessagePattern` extras: per-handler consumer options. The topic is the pattern, and the
 * decorator decides `reply` (a `@MessagePattern` replies).
 */
export type MqkitEventExtras = Omit<Partial<ConsumerOptions>, 'topic' | 'batch' | 'reply'>;

/** Options of {@link MqkitServer}: createConsumerApp's, minus `consumers` (the pattern handlers are). */
export interface MqkitServerOptions extends Omit<ConsumerAppOptions, 'consumers'> {
  /** The consumer group of every handler; `@EventPattern(topic, { group })` (or `@MessagePattern`) overrides it. */
  readonly group: string;
  /** Consumer options for every handler; `@EventPattern(topic, extras)` extras override them. */
  readonly consumer?: MqkitEventExtras;
  /** How long `close()` waits for running handler calls (default 30 s). */
  readonly stopTimeoutMs?: number;
}

/**
 * Transport id of {@link MqkitServer}: `@EventPattern('orders', MQKIT_TRANSPORT)` (or `@MessagePattern`) binds a
 * handler to it alone.
 */
export const MQKIT_TRANSPORT: unique symbol = Symbol.for('mqkit:transport');
