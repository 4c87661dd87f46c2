import type { MessageQueue } from '@mqkit/core';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asArray, asInt, asObject, asString, expectCode, jsonBody } from './broker-response';

function lockBody(group: string, clientId: string, mqs: readonly MessageQueue[]): Buffer {
  // LockBatchRequestBody / UnlockBatchRequestBody as fastjson writes them (fields in alphabetical order).
  const body = {
    clientId,
    consumerGroup: group,
    mqSet: mqs.map((mq) => ({ brokerName: mq.brokerName, queueId: mq.queueId, topic: mq.topic })),
    onlyThisBroker: false,
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** The broker of a batch, as `bname` for rocketmq-proxy (see consumer-offset.codec.ts); none for an empty batch. */
const brokerOf = (mqs: readonly MessageQueue[]) => (mqs[0] ? { bname: mqs[0].brokerName } : {});

/** LOCK_BATCH_MQ (41) to one broker's master: every queue of `mqs` must be on that broker. */
export function lockBatchRequest(group: string, clientId: string, mqs: readonly MessageQueue[]): OutgoingRequest {
  return { code: RequestCode.LOCK_BATCH_MQ, extFields: brokerOf(mqs), body: lockBody(group, clientId, mqs) };
}

/** UNLOCK_BATCH_MQ (42): same body; the Java client sends it oneway when it does not care for the answer. */
export function unlockBatchRequest(group: string, clientId: string, mqs: readonly MessageQueue[]): OutgoingRequest {
  return { code: RequestCode.UNLOCK_BATCH_MQ, extFields: brokerOf(mqs), body: lockBody(group, clientId, mqs) };
}

/** The queues the broker locked for this client (`lockOKMQSet`); an empty set may come as no body. */
export function parseLockBatchResponse(response: RemotingCommand, brokerName: string): MessageQueue[] {
  expectCode(response, `lock batch on ${brokerName}`, { brokerName });
  if (response.body.length === 0) return [];
  const body = asObject(jsonBody(response, 'LockBatchResponseBody'), 'LockBatchResponseBody');
  return asArray(body.lockOKMQSet, 'lockOKMQSet').map((entry, i) => {
    const o = asObject(entry, `lockOKMQSet[${i}]`);
    return {
      topic: asString(o.topic, `lockOKMQSet[${i}].topic`),
      brokerName: asString(o.brokerName, `lockOKMQSet[${i}].brokerName`),
      queueId: asInt(o.queueId, `lockOKMQSet[${i}].queueId`),
    };
  });
}
