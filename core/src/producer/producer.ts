import { randomInt } from 'node:crypto';
import { jsonCodec } from '../definition/json.codec';
import { BrokerError } from '../errors/broker.error';
import { IllegalStateError } from '../errors/state.error';
import { MessageValidationError } from '../errors/validation.error';
import { TimeoutError } from '../errors/timeout.error';
import type { EventBus } from '../events/event-bus';
import { MessageConst } from '../model/constants';
import type { MessageQueue } from '../model/message-queue';
import type { MessageSender, OutgoingRecord, RouteResolver, SendResult } from '../spi/transport.roles';
import { toError } from '../util/deferred';
import { validateBody, validateDelayLevel, validateProperties, validateTopic } from './message-validator';
import type { OutgoingMessage } from './outgoing-message';
import type { ResolvedProducerOptions } from './producer-options';
import { UniqKeyGenerator } from './uniq-key';

interface TopicCursor {
  readonly queues: readonly MessageQueue[];
  /** RocketMQ's ThreadLocalIndex: random start, +1 per candidate examined, masked to 31 bits. */
  counter: number;
}

export interface ProducerDeps {
  readonly options: ResolvedProducerOptions;
  readonly routes: RouteResolver;
  readonly sender: MessageSender;
  readonly events: EventBus;
}

/**
 * Sends messages with RocketMQ's producer behaviour: round robin over the topic's writable queues (one counter
 * per topic with a random start), validation before anything is sent, one UNIQ_KEY per message kept across
 * retries, and sync retries on retryable failures that avoid the broker that just failed, all within one
 * sendMsgTimeout budget.
 */
export class Producer {
  private readonly cursors = new Map<string, TopicCursor>();
  private readonly uniq = new UniqKeyGenerator();
  private readonly inflight = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(private readonly deps: ProducerDeps) {}

  get group(): string {
    return this.deps.options.group;
  }

  /** Sends and resolves with the broker's result (FLUSH_DISK_TIMEOUT and friends are results, not errors). */
  send<T>(message: OutgoingMessage<T>): Promise<SendResult> {
    if (this.stopped) return Promise.reject(new IllegalStateError(`producer ${this.group} is stopped`));
    const promise = this.sendWithRetries(message);
    this.inflight.add(promise);
    const forget = (): void => void this.inflight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  /** Resolves after every send in flight has settled; later sends are refused. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.inflight]);
  }

  /** Validates and encodes a message into what goes on the wire (throws MessageValidationError). */
  buildRecord<T>(message: OutgoingMessage<T>): OutgoingRecord {
    validateTopic(message.topic);
    const { options } = this.deps;
    let body: Buffer;
    if (message.body !== undefined) body = typeof message.body === 'string' ? Buffer.from(message.body, 'utf8') : message.body;
    else if (message.payload !== undefined) body = (options.codec ?? jsonCodec).encode(message.payload);
    else throw new MessageValidationError('body.null', 'the message body is null: give body or payload');
    validateBody(body, options.maxMessageSize);
    validateProperties(message.properties);
    validateDelayLevel(message.delayTimeLevel);
    const properties: Record<string, string> = { ...message.properties };
    properties[MessageConst.WAIT] = message.waitStoreMsgOK === false ? 'false' : 'true';
    if (message.tags) properties[MessageConst.TAGS] = message.tags;
    const keys = typeof message.keys === 'string' ? [message.keys] : (message.keys ?? []);
    if (keys.length > 0) properties[MessageConst.KEYS] = keys.join(' ');
    if (message.delayTimeLevel && message.delayTimeLevel > 0) properties[MessageConst.DELAY] = String(message.delayTimeLevel);
    properties[MessageConst.UNIQ_KEY] = this.uniq.next();
    return { topic: message.topic, body, flag: message.flag ?? 0, properties, sysFlag: 0, bornTimestamp: Date.now() };
  }

  private async sendWithRetries<T>(message: OutgoingMessage<T>): Promise<SendResult> {
    const record = this.buildRecord(message);
    const { options, sender, events } = this.deps;
    const started = Date.now();
    const attempts = 1 + options.retryTimesWhenSendFailed;
    let lastBroker: string | undefined;
    let lastError: Error | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const mq = await this.selectQueue(record.topic, lastBroker);
      const elapsed = Date.now() - started;
      if (elapsed >= options.sendMsgTimeout) {
        throw new TimeoutError(`send to ${record.topic} timed out after ${elapsed} ms and ${attempt - 1} attempt(s)`, { cause: lastError });
      }
      try {
        const result = await sender.send(mq, { ...record, bornTimestamp: Date.now() }, { producerGroup: options.group, timeoutMs: options.sendMsgTimeout - elapsed });
        if (events.has('producer.send')) events.emit('producer.send', { group: options.group, topic: record.topic, mq, msgId: result.msgId, attempts: attempt });
        return result;
      } catch (error) {
        lastError = toError(error);
        lastBroker = mq.brokerName;
        events.emit('producer.error', { group: options.group, topic: record.topic, error: lastError, attempt });
        // RocketMQ retries transport failures and the retryable broker codes, nothing else.
        const retriable = error instanceof BrokerError ? error.retriable : !(error instanceof MessageValidationError);
        if (!retriable) throw lastError;
        this.deps.routes.invalidate?.(record.topic);
      }
    }
    throw lastError ?? new Error(`send to ${record.topic} failed`);
  }

  /** RocketMQ's selectOneMessageQueue without latency fault tolerance. */
  private async selectQueue(topic: string, lastBroker: string | undefined): Promise<MessageQueue> {
    const queues = await this.deps.routes.publishQueues(topic);
    if (queues.length === 0) throw new BrokerError(`No route info of this topic: ${topic}`, { responseCode: 17, retriable: true });
    let cursor = this.cursors.get(topic);
    if (!cursor || !sameQueues(cursor.queues, queues)) {
      cursor = { queues, counter: randomInt(0, 2 ** 31 - 1) };
      this.cursors.set(topic, cursor);
    }
    if (lastBroker !== undefined) {
      for (let i = 0; i < queues.length; i++) {
        const mq = queues[this.next(cursor) % queues.length]!;
        if (mq.brokerName !== lastBroker) return mq;
      }
    }
    return queues[this.next(cursor) % queues.length]!;
  }

  private next(cursor: TopicCursor): number {
    cursor.counter = (cursor.counter + 1) & 0x7fffffff;
    return cursor.counter;
  }
}

function sameQueues(a: readonly MessageQueue[], b: readonly MessageQueue[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.brokerName !== b[i]!.brokerName || a[i]!.queueId !== b[i]!.queueId) return false;
  return true;
}
