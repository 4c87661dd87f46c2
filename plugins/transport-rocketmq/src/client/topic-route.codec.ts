import { ProtocolError, type MessageQueue } from '@mqkit/core';
import { fastJsonEntries, type FastJsonValue } from '../protocol/fastjson.parser';
import { MQVersion, PermName, RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asArray, asInt, asObject, asString, expectCode, jsonBody } from './broker-response';

/** One broker's queues of a topic (QueueData). */
export interface QueueData {
  readonly brokerName: string;
  readonly readQueueNums: number;
  readonly writeQueueNums: number;
  /** PermName bits: READ 4, WRITE 2. */
  readonly perm: number;
  readonly topicSysFlag: number;
}

/** One broker group (BrokerData): its addresses by broker id, 0 being the master. */
export interface BrokerData {
  readonly cluster: string;
  readonly brokerName: string;
  readonly brokerAddrs: ReadonlyMap<number, string>;
  readonly zoneName: string | undefined;
}

/** A topic's route from the name server (TopicRouteData). */
export interface TopicRoute {
  readonly orderTopicConf: string | undefined;
  readonly queueDatas: readonly QueueData[];
  readonly brokerDatas: readonly BrokerData[];
  /** True for a static topic (topicQueueMappingByBroker), whose logical queues this client does not map yet. */
  readonly staticTopic: boolean;
}

/** The master's broker id (MixAll.MASTER_ID). */
export const MASTER_ID = 0;

/**
 * GET_ROUTEINFO_BY_TOPIC. `acceptStandardJsonOnly` makes any name server ≥ 4.9.4 quote map keys (so does a
 * request version ≥ 401, which the connection sends); the parser copes with the old form anyway.
 */
export function routeRequest(topic: string): OutgoingRequest {
  return { code: RequestCode.GET_ROUTEINFO_BY_TOPIC, extFields: { topic, acceptStandardJsonOnly: 'true' } };
}

/** The request version from which the name server answers in standard JSON (ClientRequestProcessor). */
export const STANDARD_JSON_VERSION = MQVersion.V4_9_4;

/**
 * Reads a route response: SUCCESS with a TopicRouteData body, else a BrokerError (TOPIC_NOT_EXIST 17, or
 * SYSTEM_ERROR "name server not ready"). Numeric map keys and longs are read whether quoted or not.
 */
export function parseTopicRoute(response: RemotingCommand, topic: string): TopicRoute {
  expectCode(response, `route of topic ${topic}`);
  const body = asObject(jsonBody(response, `route of topic ${topic}`), 'TopicRouteData');
  const queueDatas = asArray(body.queueDatas, 'queueDatas').map((q, i) => {
    const o = asObject(q, `queueDatas[${i}]`);
    return {
      brokerName: asString(o.brokerName, `queueDatas[${i}].brokerName`),
      readQueueNums: asInt(o.readQueueNums, `queueDatas[${i}].readQueueNums`),
      writeQueueNums: asInt(o.writeQueueNums, `queueDatas[${i}].writeQueueNums`),
      perm: asInt(o.perm, `queueDatas[${i}].perm`),
      topicSysFlag: o.topicSysFlag === undefined ? 0 : asInt(o.topicSysFlag, `queueDatas[${i}].topicSysFlag`),
    };
  });
  const brokerDatas = asArray(body.brokerDatas, 'brokerDatas').map((b, i) => {
    const o = asObject(b, `brokerDatas[${i}]`);
    const addrs = new Map<number, string>();
    for (const [key, value] of fastJsonEntries(o.brokerAddrs as FastJsonValue)) {
      const id = typeof key === 'string' && /^-?\d+$/.test(key) ? Number(key) : typeof key === 'number' ? key : NaN;
      if (!Number.isSafeInteger(id))
        throw new ProtocolError(`brokerDatas[${i}].brokerAddrs has a non-numeric broker id`);
      addrs.set(id, asString(value, `brokerDatas[${i}].brokerAddrs.${id}`));
    }
    const zone = o.zoneName;
    return {
      cluster: typeof o.cluster === 'string' ? o.cluster : '',
      brokerName: asString(o.brokerName, `brokerDatas[${i}].brokerName`),
      brokerAddrs: addrs,
      zoneName: typeof zone === 'string' ? zone : undefined,
    };
  });
  const order = body.orderTopicConf;
  const mapping = body.topicQueueMappingByBroker;
  return {
    orderTopicConf: typeof order === 'string' && order.length > 0 ? order : undefined,
    queueDatas,
    brokerDatas,
    staticTopic: fastJsonEntries(mapping).length > 0,
  };
}

/**
 * Readable queues (MQClientInstance.topicRouteData2TopicSubscribeInfo): ids 0..readQueueNums-1 of every
 * queueData with the READ bit, in route order (the rebalance sorts them).
 */
export function subscribeQueuesOf(topic: string, route: TopicRoute): MessageQueue[] {
  const out: MessageQueue[] = [];
  for (const qd of route.queueDatas) {
    if ((qd.perm & PermName.READ) === 0) continue;
    for (let queueId = 0; queueId < qd.readQueueNums; queueId++)
      out.push({ topic, brokerName: qd.brokerName, queueId });
  }
  return out;
}

/**
 * Writable queues (topicRouteData2TopicPublishInfo): with an orderTopicConf ("broker-a:4;broker-b:4") exactly
 * those; otherwise queueDatas sorted by broker name (Java's QueueData.compareTo), the WRITE bit set and a master
 * known (brokerAddrs has id 0), ids 0..writeQueueNums-1.
 */
export function publishQueuesOf(topic: string, route: TopicRoute): MessageQueue[] {
  const out: MessageQueue[] = [];
  if (route.orderTopicConf !== undefined) {
    for (const part of route.orderTopicConf.split(';')) {
      const [brokerName = '', nums = ''] = part.split(':');
      const count = Number(nums);
      if (!Number.isInteger(count) || count < 0)
        throw new ProtocolError(`orderTopicConf entry ${JSON.stringify(part)} is malformed`);
      for (let queueId = 0; queueId < count; queueId++) out.push({ topic, brokerName, queueId });
    }
    return out;
  }
  const sorted = [...route.queueDatas].sort((a, b) =>
    a.brokerName < b.brokerName ? -1 : a.brokerName > b.brokerName ? 1 : 0,
  );
  for (const qd of sorted) {
    if ((qd.perm & PermName.WRITE) === 0) continue;
    const broker = route.brokerDatas.find((b) => b.brokerName === qd.brokerName);
    if (!broker?.brokerAddrs.has(MASTER_ID)) continue;
    for (let queueId = 0; queueId < qd.writeQueueNums; queueId++)
      out.push({ topic, brokerName: qd.brokerName, queueId });
  }
  return out;
}

/** The address of a broker group's member (default the master), or undefined when the route has none. */
export function brokerAddressOf(route: TopicRoute, brokerName: string, brokerId = MASTER_ID): string | undefined {
  return route.brokerDatas.find((b) => b.brokerName === brokerName)?.brokerAddrs.get(brokerId);
}
