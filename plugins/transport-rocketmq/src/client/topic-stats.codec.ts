import type { TopicQueueStats } from '@mqkit/core';
import { fastJsonEntries } from '../protocol/fastjson.parser';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asLong, asMessageQueue, asObject, expectCode, jsonBody } from './broker-response';

/** GET_TOPIC_STATS_INFO (202 → a broker). */
export function topicStatsRequest(topic: string): OutgoingRequest {
  return { code: RequestCode.GET_TOPIC_STATS_INFO, extFields: { topic } };
}

/**
 * Reads TopicStatsTable: `offsetTable` keyed by MessageQueue objects, each a TopicOffset (minOffset, maxOffset,
 * lastUpdateTimestamp), one per queue up to max(read, write) queue count. A broker without the topic answers
 * TOPIC_NOT_EXIST, a BrokerError of kind topic-not-found.
 */
export function parseTopicStats(response: RemotingCommand, topic: string, brokerName: string): TopicQueueStats[] {
  expectCode(response, `stats of topic ${topic}`, { brokerName });
  const body = asObject(jsonBody(response, 'TopicStatsTable'), 'TopicStatsTable');
  return fastJsonEntries(body.offsetTable).map(([key, value], i) => {
    const o = asObject(value, `offsetTable[${i}]`);
    return {
      mq: asMessageQueue(key, `offsetTable[${i}] key`),
      minOffset: asLong(o.minOffset, `offsetTable[${i}].minOffset`),
      maxOffset: asLong(o.maxOffset, `offsetTable[${i}].maxOffset`),
      lastUpdateTimestamp: asLong(o.lastUpdateTimestamp, `offsetTable[${i}].lastUpdateTimestamp`),
    };
  });
}
