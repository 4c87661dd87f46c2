import type { MessageQuery, MessageRecord } from '@mqkit/core';
import { formatLong } from '../protocol/checked-long';
import { decodeMessageRecord, decodeMessageRecords } from '../protocol/message-record.decoder';
import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { expectCode } from './broker-response';

/** MixAll.UNIQUE_MSG_QUERY_FLAG: an extFields flag beside QueryMessageRequestHeader. */
export const UNIQUE_KEY_QUERY_FLAG = '_UNIQUE_KEY_QUERY';

/**
 * QUERY_MESSAGE (12 → a broker): QueryMessageRequestHeader (topic, key, maxNum, beginTimestamp, endTimestamp) and
 * `_UNIQUE_KEY_QUERY`, as MQClientAPIImpl.queryMessage sends it. The broker looks `topic#key` up in its index,
 * which holds both KEYS and UNIQ_KEY entries; for a unique-key query it replaces maxNum by its defaultQueryMaxNum
 * (32), and it never returns more than maxMsgsNumBatch (64).
 *
 * The flag is signed or not as the broker checks it: a 4.x broker's ACL 1.0 leaves it out of the signature it
 * recomputes (PlainAccessValidator), a 5.x broker's authentication keeps it for clients newer than 4.9.3, as mqkit
 * announces itself. Signing it for a 4.x broker fails every query with "Check signature failed".
 */
export function queryMessageRequest(query: MessageQuery, options: { flagUnsigned?: boolean } = {}): OutgoingRequest {
  return {
    ...(options.flagUnsigned ? { unsignedFields: [UNIQUE_KEY_QUERY_FLAG] } : {}),
    code: RequestCode.QUERY_MESSAGE,
    extFields: {
      topic: query.topic,
      key: query.key,
      maxNum: query.maxNum,
      beginTimestamp: formatLong(query.beginTimestamp, 'beginTimestamp'),
      endTimestamp: formatLong(query.endTimestamp, 'endTimestamp'),
      [UNIQUE_KEY_QUERY_FLAG]: query.uniqueKey,
    },
  };
}

/**
 * The index's hits: stored records back to back, in commit-log order (QueryMessageTransfer). QUERY_NOT_FOUND ("can
 * not find message, maybe time range not correct") is no hit; other codes are BrokerErrors. Inner batches stay
 * whole, as MessageDecoder.decodes leaves them.
 */
export function parseQueryMessageResponse(
  response: RemotingCommand,
  query: MessageQuery,
  brokerName: string,
): MessageRecord[] {
  if (response.code === ResponseCode.QUERY_NOT_FOUND) return [];
  expectCode(response, `query of key ${query.key} in topic ${query.topic}`, { brokerName });
  return decodeMessageRecords(response.body, { brokerName, unwrapInnerBatch: false });
}

/** VIEW_MESSAGE_BY_ID (33 → the broker an offset message id names): ViewMessageRequestHeader's commit-log offset. */
export function viewMessageRequest(commitLogOffset: number): OutgoingRequest {
  return { code: RequestCode.VIEW_MESSAGE_BY_ID, extFields: { offset: formatLong(commitLogOffset, 'offset') } };
}

/**
 * The one record at that offset. The broker answers SYSTEM_ERROR `"can not find message by the offset, <n>"` past
 * its commit log (QueryMessageProcessor.viewMessageById): no message, undefined. Other codes are BrokerErrors.
 */
export function parseViewMessageResponse(
  response: RemotingCommand,
  commitLogOffset: number,
  brokerName: string,
): MessageRecord | undefined {
  if (
    response.code === ResponseCode.SYSTEM_ERROR &&
    (response.remark ?? '').startsWith('can not find message by the offset')
  )
    return undefined;
  expectCode(response, `view message at commit-log offset ${commitLogOffset}`, { brokerName });
  return decodeMessageRecord(response.body, { brokerName });
}
