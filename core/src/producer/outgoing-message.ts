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
  /** 1-18: deliver after RocketMQ's delay level. Not with a timer. */
  readonly delayTimeLevel?: number;
  /**
   * RocketMQ 5 timer message: deliver at this time (epoch ms), to the broker's timerPrecisionMs (1 s by default).
   * One of deliverTimeMs, delayTimeMs and delayTimeSec; not with delayTimeLevel, not in a batch. The broker needs
   * `timerWheelEnable=true` and refuses delays beyond its `timerMaxDelaySec` (3 days by default).
   */
  readonly deliverTimeMs?: number;
  /** Timer message: deliver this many ms after the broker stores it. */
  readonly delayTimeMs?: number;
  /** Timer message: deliver this many seconds after the broker stores it. */
  readonly delayTimeSec?: number;
  readonly flag?: number;
  /** Wait for the broker to store the message before answering (RocketMQ's WAIT, default true). */
  readonly waitStoreMsgOK?: boolean;
}
