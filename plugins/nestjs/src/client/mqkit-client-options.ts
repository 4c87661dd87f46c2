import type {
  Message,
  OutgoingMessage,
  RequestOptions,
  SendOptions,
  SendResult,
  StandaloneProducerOptions,
} from '@mqkit/core';

/**
 * What {@link MqkitClient} sends with: core's `Producer`, the `StandaloneProducer` of `createProducer`, or the
 * injectable `MqkitProducer` all fit.
 */
export interface MqkitRequester {
  send(message: OutgoingMessage, options?: SendOptions): Promise<SendResult>;
  request(message: OutgoingMessage, options?: RequestOptions): Promise<Message>;
}

/** What both kinds of {@link MqkitClientOptions} share. */
export interface MqkitClientCommonOptions {
  /** ms `send()` waits for the reply, the send included (default: the producer's sendMsgTimeout, 3 s). */
  readonly timeoutMs?: number;
}

/** The client creates its own producer at `connect()` and stops it at `close()`: `createProducer`'s options. */
export interface MqkitClientProducerOptions extends StandaloneProducerOptions, MqkitClientCommonOptions {}

/** The client sends with a producer that its owner started and stops; `close()` leaves it running. */
export interface MqkitClientSharedOptions extends MqkitClientCommonOptions {
  readonly producer: MqkitRequester;
}

/** Options of {@link MqkitClient}: a producer to create, or one to share. */
export type MqkitClientOptions = MqkitClientProducerOptions | MqkitClientSharedOptions;

/** Statuses emitted on `client.status`. */
export type MqkitClientStatus = 'connecting' | 'connected' | 'disconnected';
