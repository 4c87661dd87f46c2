import type { MessageQueue } from '@mqkit/core';
import { fastJsonEntries } from '../protocol/fastjson.parser';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asMessageQueue, asObject, expectCode, jsonBody } from './broker-response';

/**
 * GET_CONSUMER_RUNNING_INFO (307 → a broker the member is connected to), as an admin sends it: the broker relays
 * it to the member's connection (AdminBrokerProcessor.callConsumer) and returns the member's answer. No jstack.
 */
export function consumerRunningInfoRequest(group: string, clientId: string): OutgoingRequest {
  return {
    code: RequestCode.GET_CONSUMER_RUNNING_INFO,
    extFields: { consumerGroup: group, clientId, jstackEnable: false },
  };
}

/**
 * The queues of a ConsumerRunningInfo answer: the keys of its `mqTable` (MessageQueue objects, fastjson's map
 * form; each value a ProcessQueueInfo). A member the broker does not know, or that fails, answers SYSTEM_ERROR
 * (`"The Consumer <g> <c> not online"`), and a slow one CONSUME_MSG_TIMEOUT: BrokerErrors.
 */
export function parseOwnedQueues(
  response: RemotingCommand,
  group: string,
  clientId: string,
  brokerName: string,
): MessageQueue[] {
  expectCode(response, `running info of ${clientId} in group ${group}`, { brokerName });
  const body = asObject(jsonBody(response, 'ConsumerRunningInfo'), 'ConsumerRunningInfo');
  return fastJsonEntries(body.mqTable).map(([key], i) => asMessageQueue(key, `mqTable[${i}] key`));
}
