import { jsonCodec } from '../definition/json.codec';
import { RequestTimeoutError } from '../errors/request-timeout.error';
import { MessageValidationError } from '../errors/validation.error';
import { MessageConst } from '../model/constants';
import type { Message, MessageRecord } from '../model/message';
import { ConsumedMessage } from '../model/consumed-message';
import type { OutgoingRecord } from '../spi/transport.roles';
import { toError } from '../util/deferred';
import type { OutgoingMessage } from '../model/outgoing-message';
import type { ProducerDeps } from './producer-deps';
import { requestProperties } from './reply-message';
import { ReplyWaiters } from './reply-waiters';
import type { SendPath } from './send-path';

/** How long `request` waits for the reply. */
export interface RequestOptions {
  /** ms from the call to the reply, the send included (default: the producer's sendMsgTimeout). */
  readonly timeoutMs?: number;
}

/**
 * The requester's half of request-reply (DefaultMQProducerImpl.request): a request is an ordinary send with a
 * correlation id, this client's id and the timeout as TTL, whose reply the broker pushes to this client's
 * connection. The client must be registered with the brokers as a producer first, or the broker finds no
 * connection to push to.
 */
export class Requests {
  private readonly waiters = new ReplyWaiters();
  private registered = false;

  constructor(
    private readonly deps: ProducerDeps,
    private readonly path: SendPath,
    private readonly build: (message: OutgoingMessage<never>) => OutgoingRecord,
  ) {}

  /** A request was made: the producer group heartbeats from now on. */
  get started(): boolean {
    return this.registered;
  }

  async request<T, R>(message: OutgoingMessage<T>, options: RequestOptions): Promise<Message<R>> {
    const { options: o, registerRequester, clientId, sender } = this.deps;
    const timeoutMs = options.timeoutMs ?? o.sendMsgTimeout;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
      throw new MessageValidationError(
        'request.timeout',
        `timeoutMs of a request is an integer number of ms >= 1, not ${String(timeoutMs)}`,
      );
    }
    if (!registerRequester || clientId === undefined || !sender.sendReply) {
      throw new MessageValidationError(
        'request.unsupported',
        'the transport cannot carry replies (MessageSender.sendReply and the broker callback receiveReply)',
      );
    }
    const built = this.build(message as OutgoingMessage<never>);
    const deadline = Date.now() + timeoutMs;
    this.registered = true;
    await registerRequester(built.topic);
    const { correlationId, properties } = requestProperties(clientId, timeoutMs);
    const record: OutgoingRecord = { ...built, properties: { ...built.properties, ...properties } };
    // The reply may arrive before the send's answer: the waiter exists first, and its clock includes the send.
    const reply = this.waiters.expect(
      correlationId,
      Math.max(1, deadline - Date.now()),
      () => new RequestTimeoutError(message.topic, correlationId, timeoutMs),
    );
    reply.catch(() => undefined); // observed below; a timeout during the send must not count as unhandled
    try {
      await this.path.sendWithRetries(record);
    } catch (error) {
      this.waiters.fail(correlationId, toError(error));
    }
    const answer = await reply;
    const mq = { topic: answer.topic, brokerName: answer.brokerName, queueId: answer.queueId };
    return new ConsumedMessage<R>(answer, mq, o.codec ?? jsonCodec, 0, o.namespace);
  }

  /** A pushed reply: to its waiting request, or dropped (`producer.reply-dropped`). */
  receive(record: MessageRecord): void {
    const correlationId = record.properties[MessageConst.CORRELATION_ID] ?? '';
    if (this.waiters.settle(correlationId, record)) return;
    this.deps.events.emit('producer.reply-dropped', {
      group: this.deps.options.group,
      correlationId,
      topic: record.topic,
    });
  }
}
