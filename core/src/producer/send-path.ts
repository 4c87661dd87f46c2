import { randomInt } from 'node:crypto';
import { BrokerError } from '../errors/broker.error';
import { MessageValidationError } from '../errors/validation.error';
import { TimeoutError } from '../errors/timeout.error';
import type { MessageQueue } from '../model/message-queue';
import type { OutgoingRecord, SendResult } from '../spi/transport.roles';
import { toError } from '../util/deferred';
import { LatencyFaultTolerance } from './latency-fault-tolerance';
import type { OutgoingMessage } from '../model/outgoing-message';
import { noRouteError } from './no-route';
import type { ProducerDeps } from './producer-deps';
import type { MessageQueueSelector } from './queue-selector';

interface TopicCursor {
  readonly queues: readonly MessageQueue[];
  /** RocketMQ's ThreadLocalIndex: random start, +1 per candidate examined, masked to 31 bits. */
  counter: number;
}

/**
 * How a record reaches a queue (docs/rocketmq-producer-model.md#queue-selection): RocketMQ's round robin with one
 * counter per topic, sync retries within one sendMsgTimeout budget that avoid the broker that just failed, the latency
 * fault table, and the single attempt of ordered sends. What is sent is built by the RecordBuilder.
 */
export class SendPath {
  private readonly cursors = new Map<string, TopicCursor>();
  private readonly faults = new LatencyFaultTolerance();

  constructor(private readonly deps: ProducerDeps) {}

  /** RocketMQ's sendDefaultImpl (sync): 1 + retryTimesWhenSendFailed attempts within one timeout budget. */
  async sendWithRetries(record: OutgoingRecord, batch?: OutgoingRecord[]): Promise<SendResult> {
    const { options, sender, events } = this.deps;
    const started = Date.now();
    const attempts = 1 + options.retryTimesWhenSendFailed;
    let lastBroker: string | undefined;
    let lastError: Error | undefined;
    let lastResult: SendResult | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const queues = await this.deps.routes.publishQueues(record.topic);
      if (queues.length === 0) throw noRouteError(record.topic, true);
      const mq = this.pick(record.topic, queues, lastBroker, attempt > 1);
      const elapsed = Date.now() - started;
      if (elapsed >= options.sendMsgTimeout) {
        throw new TimeoutError(
          `sendDefaultImpl call timeout: ${record.topic} after ${elapsed} ms and ${attempt - 1} attempt(s)`,
          { cause: lastError },
        );
      }
      const t0 = Date.now();
      try {
        const budget = { producerGroup: options.group, timeoutMs: options.sendMsgTimeout - elapsed };
        const result = batch
          ? await sender.sendBatch!(
              mq,
              batch.map((r) => ({ ...r, bornTimestamp: Date.now() })),
              budget,
            )
          : await sender.send(mq, { ...record, bornTimestamp: Date.now() }, budget);
        this.faults.update(mq.brokerName, Date.now() - t0, false, true);
        if (events.has('producer.send'))
          events.emit('producer.send', {
            group: options.group,
            topic: record.topic,
            mq,
            msgId: result.msgId,
            attempts: attempt,
            durationMs: Date.now() - started,
          });
        if (result.status === 'SEND_OK' || !options.retryAnotherBrokerWhenNotStoreOK) return result;
        lastResult = result;
        lastBroker = mq.brokerName;
      } catch (error) {
        lastError = toError(error);
        lastBroker = mq.brokerName;
        const brokerRefusal = error instanceof BrokerError;
        this.faults.update(mq.brokerName, Date.now() - t0, true, !brokerRefusal);
        events.emit('producer.error', {
          group: options.group,
          topic: record.topic,
          error: lastError,
          attempt,
          durationMs: Date.now() - t0,
        });
        // RocketMQ retries transport failures and the retryable broker codes, nothing else.
        const retriable = brokerRefusal ? error.retriable : !(error instanceof MessageValidationError);
        if (!retriable) {
          if (lastResult) return lastResult;
          throw lastError;
        }
        this.deps.routes.invalidate?.(record.topic);
      }
    }
    if (lastResult) return lastResult;
    throw lastError ?? new Error(`send to ${record.topic} failed`);
  }

  /** Ordered and explicit-queue sends: one attempt to the chosen queue, no retry, no broker avoidance. */
  async sendSelected<T>(
    record: OutgoingRecord,
    message: OutgoingMessage<T>,
    selector: MessageQueueSelector,
  ): Promise<SendResult> {
    const { options, sender, events } = this.deps;
    const queues = await this.deps.routes.publishQueues(record.topic);
    if (queues.length === 0) throw noRouteError(record.topic, true);
    const mq = selector([...queues], message as OutgoingMessage<unknown>);
    if (!mq) throw new MessageValidationError('selector.null', 'select message queue return null');
    if (mq.topic !== record.topic)
      throw new MessageValidationError(
        'selector.topic',
        `the selected queue's topic ${mq.topic} is not the message's topic ${record.topic}`,
      );
    const t0 = Date.now();
    try {
      const result = await sender.send(mq, record, { producerGroup: options.group, timeoutMs: options.sendMsgTimeout });
      if (events.has('producer.send'))
        events.emit('producer.send', {
          group: options.group,
          topic: record.topic,
          mq,
          msgId: result.msgId,
          attempts: 1,
          durationMs: Date.now() - t0,
        });
      return result;
    } catch (error) {
      events.emit('producer.error', {
        group: options.group,
        topic: record.topic,
        error: toError(error),
        attempt: 1,
        durationMs: Date.now() - t0,
      });
      throw error;
    }
  }

  /**
   * RocketMQ's selectOneMessageQueue. Without fault tolerance: round robin, a retry skips the broker that just
   * failed. With it (5.1.4+): a retry restarts the counter at random, then the first queue whose broker is available
   * and not the last one, else one that is reachable, else any.
   */
  pick(topic: string, queues: readonly MessageQueue[], lastBroker: string | undefined, retry = false): MessageQueue {
    let cursor = this.cursors.get(topic);
    if (!cursor || !sameQueues(cursor.queues, queues)) {
      cursor = { queues, counter: randomInt(0, 2 ** 31 - 1) };
      this.cursors.set(topic, cursor);
    }
    const n = queues.length;
    if (this.deps.options.sendLatencyFaultEnable) {
      if (retry) cursor.counter = randomInt(0, 2 ** 31 - 1);
      for (let i = 0; i < n; i++) {
        const mq = queues[this.next(cursor) % n]!;
        if (this.faults.isAvailable(mq.brokerName) && mq.brokerName !== lastBroker) return mq;
      }
      for (let i = 0; i < n; i++) {
        const mq = queues[this.next(cursor) % n]!;
        if (this.faults.isReachable(mq.brokerName) && mq.brokerName !== lastBroker) return mq;
      }
      return queues[this.next(cursor) % n]!;
    }
    if (lastBroker !== undefined) {
      for (let i = 0; i < n; i++) {
        const mq = queues[this.next(cursor) % n]!;
        if (mq.brokerName !== lastBroker) return mq;
      }
    }
    return queues[this.next(cursor) % n]!;
  }

  private next(cursor: TopicCursor): number {
    cursor.counter = (cursor.counter + 1) & 0x7fffffff;
    return cursor.counter;
  }
}

function sameQueues(a: readonly MessageQueue[], b: readonly MessageQueue[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++)
    if (a[i]!.brokerName !== b[i]!.brokerName || a[i]!.queueId !== b[i]!.queueId) return false;
  return true;
}
