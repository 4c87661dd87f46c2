import {
  BrokerError,
  MessageConst,
  isRetryTopic,
  type MessageQueue,
  type OutgoingRecord,
  type SendResult,
  type SendStatus,
} from '@mqkit/core';
import { encodeBatchBody } from '../protocol/batch-body.codec';
import { formatLong } from '../protocol/checked-long';
import { encodeProperties } from '../protocol/properties.codec';
import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asIntText, brokerErrorKind, isAclRefusal, longField } from './broker-response';

/** The topic a broker with autoCreateTopicEnable creates unknown topics from (TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC). */
export const AUTO_CREATE_TOPIC = 'TBW102';
/** The queue count the Java producer asks for when a send creates a topic (defaultTopicQueueNums). */
export const DEFAULT_TOPIC_QUEUE_NUMS = 4;

/**
 * SEND_MESSAGE_V2 (310) header: SendMessageRequestHeaderV2's one-letter names. As the Java producer
 * (sendKernelImpl), a message to a `%RETRY%` topic carries RECONSUME_TIME and MAX_RECONSUME_TIMES in the header
 * (`j`, `l`) instead of its properties: the broker decides retry or DLQ from the header.
 */
export function sendHeader(
  mq: MessageQueue,
  record: OutgoingRecord,
  producerGroup: string,
  batch: boolean,
): Record<string, string | number | boolean | undefined> {
  let properties = record.properties;
  let reconsumeTimes = record.reconsumeTimes;
  let maxReconsumeTimes = record.maxReconsumeTimes;
  if (isRetryTopic(record.topic)) {
    const { [MessageConst.RECONSUME_TIME]: reconsume, [MessageConst.MAX_RECONSUME_TIMES]: max, ...rest } = properties;
    if (reconsume !== undefined) reconsumeTimes ??= Number(reconsume);
    if (max !== undefined) maxReconsumeTimes ??= Number(max);
    properties = rest;
  }
  return {
    a: producerGroup,
    b: record.topic,
    c: AUTO_CREATE_TOPIC,
    d: DEFAULT_TOPIC_QUEUE_NUMS,
    e: mq.queueId,
    f: record.sysFlag,
    g: formatLong(record.bornTimestamp, 'bornTimestamp'),
    h: record.flag | 0,
    i: encodeProperties(properties),
    j: reconsumeTimes ?? 0,
    k: false,
    l: maxReconsumeTimes,
    m: batch,
    n: mq.brokerName,
  };
}

/** One message to one queue (SEND_MESSAGE_V2); the body is sent as given (already compressed when sysFlag says so). */
export function sendMessageRequest(mq: MessageQueue, record: OutgoingRecord, producerGroup: string): OutgoingRequest {
  return {
    code: RequestCode.SEND_MESSAGE_V2,
    extFields: sendHeader(mq, record, producerGroup, false),
    body: record.body,
  };
}

/**
 * SEND_BATCH_MESSAGE (320): the records encoded back to back (MessageDecoder.encodeMessages), each with its own
 * properties and UNIQ_KEY; the header is the first record's with batch=true, sysFlag 0 (batches are never
 * compressed) and only WAIT among the properties, as MessageBatch.generateFromList builds it.
 */
export function sendBatchRequest(
  mq: MessageQueue,
  records: readonly OutgoingRecord[],
  producerGroup: string,
): OutgoingRequest {
  const first = records[0];
  if (!first) throw new RangeError('a batch needs at least one record');
  const wait = first.properties[MessageConst.WAIT];
  const header = sendHeader(
    mq,
    { ...first, sysFlag: 0, properties: wait === undefined ? {} : { [MessageConst.WAIT]: wait } },
    producerGroup,
    true,
  );
  const body = encodeBatchBody(records.map((r) => ({ flag: r.flag, body: r.body, properties: r.properties })));
  return { code: RequestCode.SEND_BATCH_MESSAGE, extFields: header, body };
}

/** Response codes the Java producer reads as a stored message (MQClientAPIImpl.processSendResponse). */
const STATUS_BY_CODE: ReadonlyMap<number, SendStatus> = new Map<number, SendStatus>([
  [ResponseCode.SUCCESS, 'SEND_OK'],
  [ResponseCode.FLUSH_DISK_TIMEOUT, 'FLUSH_DISK_TIMEOUT'],
  [ResponseCode.FLUSH_SLAVE_TIMEOUT, 'FLUSH_SLAVE_TIMEOUT'],
  [ResponseCode.SLAVE_NOT_AVAILABLE, 'SLAVE_NOT_AVAILABLE'],
]);

/**
 * Reads a send answer: 0/10/11/12 are results (the message is stored); anything else is a BrokerError with the
 * broker's code and RocketMQ's retry verdict. `msgId` is the producer's UNIQ_KEY (joined with commas for a batch);
 * the header's `msgId` is the broker's offset msg id.
 */
/**
 * The broker setting behind a timer refusal. SendMessageProcessor answers WHEEL_TIMER_NOT_ENABLE as SYSTEM_ERROR
 * ("accurate timer message is not enabled, timerWheelEnable is false") and WHEEL_TIMER_MSG_ILLEGAL as
 * MESSAGE_ILLEGAL ("timer message illegal, the delay time should not be bigger than the max delay ...ms"): only the
 * remark tells them from other refusals with the same codes.
 */
function timerSetting(code: number, remark: string): string | undefined {
  if (code === ResponseCode.SYSTEM_ERROR && remark.startsWith('accurate timer message is not enabled'))
    return 'timerWheelEnable=true is needed for timer messages';
  if (code === ResponseCode.MESSAGE_ILLEGAL && remark.startsWith('timer message illegal'))
    return 'timerMaxDelaySec bounds the delay of a timer message';
  // rocketmq-proxy checks each message's type against its topic's (enableTopicMessageTypeCheck, on by default).
  const typed = /TopicMessageType validate failed, the expected type is (\w+), but actual type is (\w+)/.exec(remark);
  if (code === ResponseCode.MESSAGE_ILLEGAL && typed)
    return `the topic's message.type is ${typed[1]} and this message is ${typed[2]}: send it to a topic created with message.type=${typed[2]} (mqadmin updateTopic -a +message.type=${typed[2]}), or turn the proxy's enableTopicMessageTypeCheck off`;
  return undefined;
}

export function parseSendResponse(
  response: RemotingCommand,
  mq: MessageQueue,
  records: readonly OutgoingRecord[],
): SendResult {
  const status = STATUS_BY_CODE.get(response.code);
  if (status === undefined) {
    const remark = response.remark ?? '';
    const setting = timerSetting(response.code, remark);
    throw new BrokerError(
      `send to ${mq.topic}/${mq.brokerName}/${mq.queueId} failed: code ${response.code}${remark ? ` (${remark})` : ''}${setting ? `; broker setting: ${setting}` : ''}`,
      {
        responseCode: response.code,
        brokerName: mq.brokerName,
        kind: brokerErrorKind(response.code, remark),
        // A broker without the timer wheel refuses every timer message alike, and a 4.x broker's ACL refusal is
        // the same on every broker: retrying elsewhere only repeats it.
        retriable: setting || isAclRefusal(response) ? false : undefined,
      },
    );
  }
  const offsetMsgId = response.extFields.msgId ?? '';
  const uniq = records.map((r) => r.properties[MessageConst.UNIQ_KEY] ?? '');
  const queueId =
    response.extFields.queueId === undefined ? mq.queueId : asIntText(response.extFields.queueId, 'queueId');
  return {
    status,
    msgId: uniq.every((u) => u !== '') ? uniq.join(',') : offsetMsgId,
    offsetMsgId,
    messageQueue: { topic: mq.topic, brokerName: mq.brokerName, queueId },
    queueOffset: longField(response, 'queueOffset'),
  };
}
