import type { QueueConsumeStats } from '@mqkit/core';
import { fastJsonEntries } from '../protocol/fastjson.parser';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asLong, asMessageQueue, asObject, expectCode, jsonBody } from './broker-response';

/**
 * GET_CONSUME_STATS (208 → a broker), as examineConsumeStats sends it for the whole group: no topic, so the broker
 * answers every topic it holds offsets of the group for (ConsumerOffsetManager.whichTopicByConsumer), keeping only
 * subscribed ones while a member is online.
 */
export function consumeStatsRequest(group: string): OutgoingRequest {
  return { code: RequestCode.GET_CONSUME_STATS, extFields: { consumerGroup: group } };
}

/**
 * Reads ConsumeStats: `offsetTable` keyed by MessageQueue objects (fastjson's map form), each an OffsetWrapper
 * (brokerOffset, consumerOffset, pullOffset, lastTimestamp; consumeTps beside). pullOffset is left out: brokers
 * record it only for pop consumers, so it equals consumerOffset for everything else.
 */
export function parseConsumeStats(response: RemotingCommand, group: string, brokerName: string): QueueConsumeStats[] {
  expectCode(response, `consume stats of group ${group}`, { brokerName });
  const body = asObject(jsonBody(response, 'ConsumeStats'), 'ConsumeStats');
  return fastJsonEntries(body.offsetTable).map(([key, value], i) => {
    const mq = asMessageQueue(key, `offsetTable[${i}] key`);
    const o = asObject(value, `offsetTable[${i}]`);
    return {
      mq,
      brokerOffset: asLong(o.brokerOffset, `offsetTable[${i}].brokerOffset`),
      consumerOffset: asLong(o.consumerOffset, `offsetTable[${i}].consumerOffset`),
      // fastjson writes every field of the wrapper, 0 included; an older broker may leave it out.
      lastTimestamp: o.lastTimestamp === undefined ? 0 : asLong(o.lastTimestamp, `offsetTable[${i}].lastTimestamp`),
    };
  });
}
