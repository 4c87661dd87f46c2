import { randomUUID } from 'node:crypto';
import { MessageValidationError } from '../errors/validation.error';
import { MessageConst, replyTopicOf } from '../model/constants';
import type { MessageRecord } from '../model/message';
import type { Codec } from '../spi/codec';
import type { OutgoingRecord } from '../spi/transport.roles';
import { compressBody } from './compression';

/** MixAll.REPLY_MESSAGE_FLAG: the MSG_TYPE of a reply, which makes Java's producer send it as SEND_REPLY_MESSAGE. */
export const REPLY_MESSAGE_FLAG = 'reply';
/** Java's compressMsgBodyOverHowmuch default: replies are compressed as any message Java sends. */
const COMPRESS_OVER = 4096;

/**
 * What makes a message a request (DefaultMQProducerImpl.prepareSendRequest): a fresh correlation id
 * (CorrelationIdUtil: a random UUID), the client id the broker pushes the reply to, and the timeout as TTL.
 */
export function requestProperties(
  clientId: string,
  timeoutMs: number,
): { correlationId: string; properties: Record<string, string> } {
  const correlationId = randomUUID();
  return {
    correlationId,
    properties: {
      [MessageConst.CORRELATION_ID]: correlationId,
      [MessageConst.REPLY_TO_CLIENT]: clientId,
      [MessageConst.TTL]: String(timeoutMs),
    },
  };
}

/** A message some requester waits an answer for. */
export function isRequest(record: MessageRecord): boolean {
  const p = record.properties;
  return p[MessageConst.CORRELATION_ID] !== undefined && p[MessageConst.REPLY_TO_CLIENT] !== undefined;
}

/** A handler's return value as a reply body: a Buffer or a string as it is, anything else through the codec. */
export function replyBody(value: unknown, codec: Codec): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  return codec.encode(value);
}

/**
 * MessageUtil.createReplyMessage: the reply goes to `<cluster>_REPLY_TOPIC` of the cluster that stored the request
 * (the broker adds CLUSTER to what it stores), with the request's correlation id, reply-to client and TTL, and
 * MSG_TYPE `reply`. Throws MessageValidationError when the request carries no CLUSTER, as Java does.
 */
export function replyRecord(request: MessageRecord, body: Buffer, uniqKey: string): OutgoingRecord {
  const p = request.properties;
  const cluster = p[MessageConst.CLUSTER];
  if (cluster === undefined) {
    throw new MessageValidationError(
      'reply.cluster',
      `create reply message fail, requestMessage error, property[${MessageConst.CLUSTER}] is null.`,
    );
  }
  const properties: Record<string, string> = {
    [MessageConst.MSG_TYPE]: REPLY_MESSAGE_FLAG,
    [MessageConst.CORRELATION_ID]: p[MessageConst.CORRELATION_ID] ?? '',
    [MessageConst.REPLY_TO_CLIENT]: p[MessageConst.REPLY_TO_CLIENT] ?? '',
    [MessageConst.WAIT]: 'true',
    [MessageConst.UNIQ_KEY]: uniqKey,
  };
  const ttl = p[MessageConst.TTL];
  if (ttl !== undefined) properties[MessageConst.TTL] = ttl;
  const wire = compressBody(body, COMPRESS_OVER);
  return {
    topic: replyTopicOf(cluster),
    body: wire.body,
    flag: 0,
    properties,
    sysFlag: wire.sysFlag,
    bornTimestamp: Date.now(),
  };
}
