import { BrokerError, ProtocolError, type MessageRecord, type ReplyRequest } from '@mqkit/core';
import { inflateBody } from '../protocol/body-compression';
import { decodeProperties } from '../protocol/properties.codec';
import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asIntText, optionalLongField } from './broker-response';
import { sendHeader } from './send-message.codec';

/**
 * SEND_REPLY_MESSAGE_V2 (325), what Java's producer sends for a message whose MSG_TYPE is `reply`: the send
 * header (SendMessageRequestHeaderV2) for queue 0 of the reply topic, which every broker creates at start with
 * one queue (TopicConfigManager). The body goes as given; the broker relays it to the requester unchanged.
 */
export function sendReplyRequest(request: ReplyRequest): OutgoingRequest {
  const mq = { topic: request.record.topic, brokerName: request.brokerName, queueId: 0 };
  return {
    code: RequestCode.SEND_REPLY_MESSAGE_V2,
    extFields: sendHeader(mq, request.record, request.producerGroup, false),
    body: request.record.body,
  };
}

/**
 * The broker's answer to a reply (ReplyMessageProcessor): SUCCESS once pushed to the requester; SYSTEM_ERROR
 * with a remark when the requester's connection is not registered there (`"channel of <id> not found"`) or the push
 * failed. The broker also stores the reply (storeReplyMessageEnable) whatever the push did.
 */
export function parseReplyResponse(response: RemotingCommand, request: ReplyRequest): void {
  if (response.code === ResponseCode.SUCCESS) return;
  const remark = response.remark ?? '';
  throw new BrokerError(
    `reply to ${request.record.topic} on ${request.brokerName} failed: code ${response.code}${remark ? ` (${remark})` : ''}`,
    {
      responseCode: response.code,
      brokerName: request.brokerName,
      // The requester is gone, or registered elsewhere: another attempt at the same broker says the same.
      retriable: false,
    },
  );
}

/**
 * PUSH_REPLY_MESSAGE_TO_CLIENT (326, broker → requester): ReplyMessageRequestHeader describes the reply, the body
 * is its body as the replier sent it, compressed when the sysFlag says so (ClientRemotingProcessor inflates it).
 * The reply is not in any queue this client reads: its offsets are meaningless and left at -1.
 */
export function parsePushReply(request: RemotingCommand, brokerName: string): MessageRecord {
  const f = request.extFields;
  const topic = f.topic;
  if (topic === undefined) throw new ProtocolError('PUSH_REPLY_MESSAGE_TO_CLIENT has no topic');
  const { body, sysFlag } = inflateBody(request.body ?? Buffer.alloc(0), int(f.sysFlag, 'sysFlag'));
  return {
    topic,
    brokerName,
    queueId: int(f.queueId, 'queueId'),
    queueOffset: -1,
    commitLogOffset: -1,
    flag: int(f.flag, 'flag'),
    sysFlag,
    body,
    properties: decodeProperties(f.properties ?? ''),
    bornTimestamp: optionalLongField(request, 'bornTimestamp') ?? 0,
    bornHost: f.bornHost ?? '',
    storeTimestamp: optionalLongField(request, 'storeTimestamp') ?? 0,
    storeHost: f.storeHost ?? '',
    reconsumeTimes: int(f.reconsumeTimes, 'reconsumeTimes'),
    preparedTransactionOffset: 0,
    offsetMsgId: '',
    bodyCRC: 0,
    storeSize: 0,
  };
}

function int(text: string | undefined, key: string): number {
  return text === undefined ? 0 : asIntText(text, key);
}
