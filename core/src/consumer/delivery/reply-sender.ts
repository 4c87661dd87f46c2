import { MessageConst } from '../../model/constants';
import { isRequest, replyBody, replyRecord } from '../../producer/reply-message';
import { UniqKeyGenerator } from '../../producer/uniq-key';
import type { Codec } from '../../spi/codec';
import type { ReplyRequest } from '../../spi/transport.roles';
import type { ConsumedMessage } from '../../model/consumed-message';
import type { GroupContext } from '../queue/group-context';
import { reportError } from '../../events/report-error';

/** Java's default send timeout, for a reply. */
const REPLY_TIMEOUT_MS = 3_000;

/**
 * The replier's half of request-reply, for `reply: true` handlers: the handler's return value goes back to the
 * requester as RocketMQ's reply (MessageUtil.createReplyMessage), through the broker that stored the request, on
 * the app's own connection. A message that is not a request gets no reply. A reply that cannot be sent is
 * reported (`consumer.error`, where `reply`) and the request still counts as consumed, as in rocketmq-spring: the
 * requester sees its timeout, and running the handler again would repeat its effects.
 */
export class ReplySender {
  private readonly uniq = new UniqKeyGenerator();

  constructor(
    private readonly ctx: GroupContext,
    private readonly send: (request: ReplyRequest) => Promise<void>,
  ) {}

  /** Never rejects. */
  async reply(message: ConsumedMessage, value: unknown, codec: Codec): Promise<void> {
    const { record } = message;
    if (!isRequest(record)) return;
    const { group, events } = this.ctx;
    const correlationId = record.properties[MessageConst.CORRELATION_ID]!;
    const replyTo = record.properties[MessageConst.REPLY_TO_CLIENT]!;
    let sent = false;
    try {
      const reply = replyRecord(record, replyBody(value, codec), this.uniq.next());
      await this.send({
        brokerName: record.brokerName,
        record: reply,
        producerGroup: group,
        timeoutMs: REPLY_TIMEOUT_MS,
      });
      sent = true;
    } catch (error) {
      reportError(this.ctx, 'reply', error, message.messageQueue);
    }
    events.emit('consumer.reply', { group, correlationId, replyTo, sent });
  }
}
