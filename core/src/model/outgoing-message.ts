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
  /**
   * RocketMQ 5.4 priority message: an integer of at least 0. A 5.4+ broker stores the message in the queue of that
   * index (the last queue for a larger one) when the topic's `message.type` is PRIORITY or unset, and POP consumers
   * take higher queues first; pull consumers read every queue as usual. Not with a timer, a delay level, a
   * transaction or a sharding key (the broker then drops the priority). A broker before 5.4 is refused.
   */
  readonly priority?: number;
  /**
   * RocketMQ 5.5 lite topic: the child topic of this message within its topic (sent as `__LITE_TOPIC`). A 5.5 broker
   * with `enableLmq` and `enableMultiDispatch` also stores it in that lite topic's own queue, which POP consumers
   * of the lite topic read; consumers of the topic itself (every mqkit consumer) read it as any other message, with
   * `message.liteTopic` set. Not with a delay, a timer or a priority, not in a batch or a transaction. A broker before
   * 5.5 is refused.
   */
  readonly liteTopic?: string;
  readonly flag?: number;
  /** Wait for the broker to store the message before answering (RocketMQ's WAIT, default true). */
  readonly waitStoreMsgOK?: boolean;
}
