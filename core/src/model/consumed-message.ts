import { MessageConst, isRetryTopic } from './constants';
import { withoutNamespace } from './namespace';
import type { Message, MessageRecord } from './message';
import type { MessageQueue } from './message-queue';
import type { Codec } from '../spi/codec';

const UNDECODED: unique symbol = Symbol('undecoded');

/**
 * The `Message<T>` handed to handlers: a thin view over the transport's record. The payload is decoded on first
 * access, so handlers that read only `body` pay nothing for the codec, and a decode error surfaces inside the
 * handler call, where it counts as a handler failure (retry, then DLQ).
 */
export class ConsumedMessage<T = unknown> implements Message<T> {
  /** Local retries after a failed send-back add to the broker's count. */
  localReconsumeTimes = 0;
  private decoded: T | typeof UNDECODED = UNDECODED;

  constructor(
    readonly record: MessageRecord,
    readonly messageQueue: MessageQueue,
    private readonly codec: Codec,
    /** Position in the ProcessQueue window. */
    readonly seq: number,
    /** The client's namespace, left out of `topic`. */
    private readonly namespace?: string,
  ) {}

  get msgId(): string {
    return this.record.properties[MessageConst.UNIQ_KEY] ?? this.record.offsetMsgId;
  }
  get offsetMsgId(): string {
    return this.record.offsetMsgId;
  }
  get topic(): string {
    const topic = this.record.topic;
    // RocketMQ's resetRetryAndNamespace: a retried message shows its original topic to the handler, without the
    // namespace.
    const original = isRetryTopic(topic) ? (this.record.properties[MessageConst.RETRY_TOPIC] ?? topic) : topic;
    return this.namespace ? withoutNamespace(this.namespace, original) : original;
  }
  get tags(): string | undefined {
    return this.record.properties[MessageConst.TAGS];
  }
  get keys(): readonly string[] {
    const keys = this.record.properties[MessageConst.KEYS];
    return keys ? keys.split(' ').filter((k) => k !== '') : [];
  }
  get properties(): Readonly<Record<string, string>> {
    return this.record.properties;
  }
  get queueId(): number {
    return this.record.queueId;
  }
  get brokerName(): string {
    return this.record.brokerName;
  }
  get queueOffset(): number {
    return this.record.queueOffset;
  }
  get commitLogOffset(): number {
    return this.record.commitLogOffset;
  }
  get reconsumeTimes(): number {
    return this.record.reconsumeTimes + this.localReconsumeTimes;
  }
  get bornTimestamp(): number {
    return this.record.bornTimestamp;
  }
  get bornHost(): string {
    return this.record.bornHost;
  }
  get storeTimestamp(): number {
    return this.record.storeTimestamp;
  }
  get storeHost(): string {
    return this.record.storeHost;
  }
  get priority(): number | undefined {
    const text = this.record.properties[MessageConst.PRIORITY];
    return text === undefined ? undefined : Number(text);
  }
  get liteTopic(): string | undefined {
    return this.record.properties[MessageConst.LITE_TOPIC];
  }
  get flag(): number {
    return this.record.flag;
  }
  get body(): Buffer {
    return this.record.body;
  }
  get payload(): T {
    if (this.decoded === UNDECODED) this.decoded = this.codec.decode(this.record.body, this.record) as T;
    return this.decoded;
  }

  toJSON(): object {
    return {
      msgId: this.msgId,
      topic: this.topic,
      tags: this.tags,
      keys: this.keys,
      queueId: this.queueId,
      brokerName: this.brokerName,
      queueOffset: this.queueOffset,
      reconsumeTimes: this.reconsumeTimes,
      bodyLength: this.body.length,
    };
  }
}
