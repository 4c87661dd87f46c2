import type { MessageQueue } from '@mqkit/core';
import { formatLong } from '../protocol/checked-long';
import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { expectCode, longField } from './broker-response';

// Every request about a queue also names its broker as `bname` (RocketMQ 5's RpcRequestHeader, as Java 5.x clients
// send it): a broker ignores it, while rocketmq-proxy's remoting endpoint, which stands for every broker at one
// address, refuses a request without it ("Request doesn't have field bname").

/**
 * QUERY_CONSUMER_OFFSET (14) with `setZeroIfNotFound=false`: without it a 5.3.3 broker answers SUCCESS/0 for a
 * group it never saw whenever the queue's first message is still in memory (ConsumerManageProcessor), so a new
 * group would start at 0 even under CONSUME_FROM_LAST_OFFSET. With it, "no offset" is QUERY_NOT_FOUND (22).
 */
export function queryConsumerOffsetRequest(group: string, mq: MessageQueue): OutgoingRequest {
  return {
    code: RequestCode.QUERY_CONSUMER_OFFSET,
    extFields: {
      consumerGroup: group,
      topic: mq.topic,
      queueId: mq.queueId,
      setZeroIfNotFound: 'false',
      bname: mq.brokerName,
    },
  };
}

/** The committed offset, or -1 for QUERY_NOT_FOUND; any other code is a BrokerError. */
export function parseQueryConsumerOffset(response: RemotingCommand, mq: MessageQueue): number {
  if (response.code === ResponseCode.QUERY_NOT_FOUND) return -1;
  expectCode(response, `query consumer offset of ${mq.topic}/${mq.brokerName}/${mq.queueId}`, {
    brokerName: mq.brokerName,
  });
  return longField(response, 'offset');
}

/** UPDATE_CONSUMER_OFFSET (15): `commitOffset` is the next offset to consume. Answered SUCCESS with no header. */
export function updateConsumerOffsetRequest(group: string, mq: MessageQueue, offset: number): OutgoingRequest {
  return {
    code: RequestCode.UPDATE_CONSUMER_OFFSET,
    extFields: {
      consumerGroup: group,
      topic: mq.topic,
      queueId: mq.queueId,
      commitOffset: formatLong(offset, 'commitOffset'),
      bname: mq.brokerName,
    },
  };
}

/** GET_MIN_OFFSET (31). */
export function minOffsetRequest(mq: MessageQueue): OutgoingRequest {
  return {
    code: RequestCode.GET_MIN_OFFSET,
    extFields: { topic: mq.topic, queueId: mq.queueId, bname: mq.brokerName },
  };
}

/** GET_MAX_OFFSET (30): `committed` left at the broker's default (true: only offsets already dispatched). */
export function maxOffsetRequest(mq: MessageQueue): OutgoingRequest {
  return {
    code: RequestCode.GET_MAX_OFFSET,
    extFields: { topic: mq.topic, queueId: mq.queueId, bname: mq.brokerName },
  };
}

/**
 * SEARCH_OFFSET_BY_TIMESTAMP (29): the first message stored at or after `timestamp`. `boundaryType` is left out:
 * the broker's default is LOWER (SearchOffsetRequestHeader.getBoundaryType), and the header's enum is not a plain
 * string field.
 */
export function searchOffsetRequest(mq: MessageQueue, timestamp: number): OutgoingRequest {
  return {
    code: RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
    extFields: {
      topic: mq.topic,
      queueId: mq.queueId,
      timestamp: formatLong(timestamp, 'timestamp'),
      bname: mq.brokerName,
    },
  };
}

/** The `offset` header of a SUCCESS answer (min, max, search); any other code is a BrokerError. */
export function parseOffsetResponse(response: RemotingCommand, what: string, mq: MessageQueue): number {
  expectCode(response, `${what} of ${mq.topic}/${mq.brokerName}/${mq.queueId}`, { brokerName: mq.brokerName });
  return longField(response, 'offset');
}
