import { ProtocolError, type DirectConsumeResult, type MessageQueue, type MessageRecord } from '@mqkit/core';
import { parseLong, toSafeNumber } from '../protocol/checked-long';
import { fastJsonEntries, isFastJsonObject, parseFastJsonBody } from '../protocol/fastjson.parser';
import { decodeMessageRecords } from '../protocol/message-record.decoder';
import type { RemotingCommand } from '../protocol/remoting-command';
import { asInt, asString } from './broker-response';

/** NOTIFY_CONSUMER_IDS_CHANGED (40, oneway): the group whose membership changed. */
export function parseNotifyConsumerIdsChanged(request: RemotingCommand): { readonly group: string } {
  return { group: required(request, 'consumerGroup') };
}

/** RESET_CONSUMER_CLIENT_OFFSET (220, oneway): the new offset of each queue of the group's topic. */
export interface ResetOffsetRequest {
  readonly group: string;
  readonly topic: string;
  readonly timestamp: number;
  readonly isForce: boolean;
  readonly offsets: ReadonlyArray<{ readonly mq: MessageQueue; readonly offset: number }>;
}

/**
 * Reads RESET_CONSUMER_CLIENT_OFFSET: header group/topic/timestamp/isForce and a ResetOffsetBody whose offsetTable
 * has MessageQueue objects as keys (fastjson's non-standard form). Offsets beyond 2^53 are UnsafeLongErrors.
 * Without a body the table is empty, as the Java client treats it.
 */
export function parseResetOffsetRequest(request: RemotingCommand): ResetOffsetRequest {
  return {
    group: required(request, 'group'),
    topic: required(request, 'topic'),
    timestamp: parseLong(required(request, 'timestamp'), 'timestamp'),
    isForce: request.extFields.isForce === 'true',
    offsets: parseOffsetTable(request.body),
  };
}

/**
 * Reads a ResetOffsetBody (`{"offsetTable":{{"brokerName":…,"queueId":…,"topic":…}:offset,…}}`, MessageQueue
 * objects as keys, fastjson's non-standard form). An empty body is an empty table. Offsets beyond 2^53 are
 * UnsafeLongErrors.
 */
export function parseOffsetTable(bytes: Buffer): Array<{ mq: MessageQueue; offset: number }> {
  const offsets: Array<{ mq: MessageQueue; offset: number }> = [];
  if (bytes.length === 0) return offsets;
  const body = parseFastJsonBody(bytes);
  if (!isFastJsonObject(body)) throw new ProtocolError('ResetOffsetBody is not an object');
  for (const [key, value] of fastJsonEntries(body.offsetTable)) {
    if (!isFastJsonObject(key)) throw new ProtocolError('ResetOffsetBody.offsetTable key is not a MessageQueue');
    const mq = {
      topic: asString(key.topic, 'offsetTable key.topic'),
      brokerName: asString(key.brokerName, 'offsetTable key.brokerName'),
      queueId: asInt(key.queueId, 'offsetTable key.queueId'),
    };
    let offset: number;
    if (typeof value === 'bigint') offset = toSafeNumber(value, 'offsetTable offset');
    else if (typeof value === 'number' && Number.isSafeInteger(value)) offset = value;
    else throw new ProtocolError(`offsetTable offset of ${mq.topic}/${mq.brokerName}/${mq.queueId} is not an integer`);
    offsets.push({ mq, offset });
  }
  return offsets;
}

/** GET_CONSUMER_RUNNING_INFO (307, sync): which group the admin tool asks about. */
export function parseConsumerRunningInfoRequest(request: RemotingCommand): {
  readonly group: string;
  readonly clientId: string;
  readonly jstackEnable: boolean;
} {
  return {
    group: required(request, 'consumerGroup'),
    clientId: request.extFields.clientId ?? '',
    jstackEnable: request.extFields.jstackEnable === 'true',
  };
}

/**
 * CONSUME_MESSAGE_DIRECTLY (309, sync, relayed by a broker from `mqadmin queryMsgById -g -d` or the dashboard):
 * header ConsumeMessageDirectlyResultRequestHeader (consumerGroup, clientId, msgId, brokerName added by the
 * broker); the body is the one stored record, in the commit log's layout.
 */
export function parseConsumeMessageDirectlyRequest(request: RemotingCommand): {
  readonly group: string;
  readonly brokerName: string;
  readonly record: MessageRecord;
} {
  const brokerName = request.extFields.brokerName ?? '';
  const [record] = decodeMessageRecords(request.body, { brokerName });
  if (!record) throw new ProtocolError('CONSUME_MESSAGE_DIRECTLY has no message in its body');
  return { group: required(request, 'consumerGroup'), brokerName, record };
}

/** ConsumeMessageDirectlyResult as fastjson writes it (note RocketMQ's spelling `spentTimeMills`; remark omitted when null). */
export function consumeMessageDirectlyResultBody(result: DirectConsumeResult): Buffer {
  const body: Record<string, boolean | number | string> = {
    autoCommit: true,
    consumeResult: result.result,
    order: result.order,
  };
  if (result.remark !== undefined) body.remark = result.remark;
  body.spentTimeMills = result.spentTimeMs;
  return Buffer.from(JSON.stringify(body), 'utf8');
}

function required(request: RemotingCommand, key: string): string {
  const value = request.extFields[key];
  if (value === undefined) throw new ProtocolError(`request ${request.code} has no ${key}`);
  return value;
}
