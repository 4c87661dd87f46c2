/** A message to send. Give either `payload` (encoded by the producer's codec, JSON by default) or `body`. */
export interface OutgoingMessage<T = unknown> {
  readonly topic: string;
  readonly payload?: T;
  readonly body?: Buffer | string;
  readonly tags?: string;
  /** One key or several; RocketMQ indexes them for lookup. */
  readonly keys?: string | readonly string[];
  /** User properties; reserved names (TAGS, KEYS, UNIQ_KEY, ...) are refused. */
  readonly properties?: Readonly<Record<string, string>>;
  /** 1-18: deliver after RocketMQ's delay level. */
  readonly delayTimeLevel?: number;
  readonly flag?: number;
  /** Wait for the broker to store the message before answering (RocketMQ's WAIT, default true). */
  readonly waitStoreMsgOK?: boolean;
}
