import { compareMessageQueues, type ConsumerRegistration, type ConsumerStatus, type MessageQueue } from '@mqkit/core';
import { stringifyFastJson, type FastJsonWritable } from '../protocol/fastjson.writer';
import { subscriptionJson } from './heartbeat.codec';

/** What a GET_CONSUMER_RUNNING_INFO answer is built from. */
export interface RunningInfoInput {
  /** The group's last heartbeat registration (subscriptions, model, where from). */
  readonly registration: ConsumerRegistration | undefined;
  /** Core's status of the group on this client (`BrokerCallbacks.runningInfo`); undefined when unknown. */
  readonly status: ConsumerStatus | undefined;
  readonly nameServers: readonly string[];
  readonly startTimestamp: number;
  /** MQVersion name reported as PROP_CLIENT_VERSION, e.g. "V5_3_3". */
  readonly clientVersion: string;
  /** When this client last got the broker lock of a queue (orderly, exclusive handoff); undefined when not held. */
  readonly lockedAt?: (mq: MessageQueue) => number | undefined;
}

const MIB = 1024 * 1024;

/** Core's guard for what BrokerCallbacks.runningInfo returns, kept here under its former name for the internal entry. */
export { isConsumerStatus } from '@mqkit/core/internal';

/**
 * ConsumerRunningInfo as fastjson writes it, so `mqadmin consumerStatus` and the dashboard read it: `properties`
 * (Java Properties: every value a string; the PROP_* keys MQClientInstance and the push consumer add, plus the
 * group's settings),
 * `subscriptionSet`, `mqTable` (MessageQueue objects as keys, sorted as Java's TreeMap sorts them, each a
 * ProcessQueueInfo, with `locked` from this client's broker locks and the last pull and consume times),
 * `statusTable` (per topic: core's pull and consume rates over about a minute, failures over an hour) and
 * `userConsumerInfo`. No `jstack`: there are no Java threads to dump.
 */
export function consumerRunningInfoBody(input: RunningInfoInput): Buffer {
  const { registration, status } = input;
  const properties: { [key: string]: string } = {
    PROP_CLIENT_VERSION: input.clientVersion,
    PROP_CONSUME_TYPE: registration?.consumeType ?? 'CONSUME_PASSIVELY',
    PROP_CONSUMER_START_TIMESTAMP: String(input.startTimestamp),
    PROP_NAMESERVER_ADDR: input.nameServers.join(';'),
  };
  if (registration) {
    properties.consumerGroup = registration.group;
    properties.messageModel = registration.messageModel;
    properties.consumeFromWhere = registration.consumeFromWhere;
  }
  if (status) {
    properties.clientId = status.clientId;
    properties.allocateMessageQueueStrategy = status.strategy;
    properties.state = status.state;
    properties.paused = String(status.paused);
    properties.inFlight = String(status.inFlight);
    properties.lag = String(status.lag);
    properties.PROP_CONSUMEORDERLY = String(status.consumeMode === 'ORDERLY');
    properties.PROP_THREADPOOL_CORE_SIZE = String(status.consumeThreadMin);
  }
  const queues = [...(status?.queues ?? [])].sort((a, b) => compareMessageQueues(a.mq, b.mq));
  const mqTable = new Map<FastJsonWritable, FastJsonWritable>();
  for (const q of queues) {
    const cached = q.cachedCount > 0;
    const lockedAt = input.lockedAt?.(q.mq);
    mqTable.set(mqJson(q.mq), {
      cachedMsgCount: q.cachedCount,
      // The committable offset is the smallest offset still cached; nextOffset - 1 the largest pulled.
      cachedMsgMaxOffset: cached ? q.nextOffset - 1 : 0,
      cachedMsgMinOffset: cached ? Math.max(q.committableOffset, 0) : 0,
      cachedMsgSizeInMiB: Math.floor(q.cachedBytes / MIB),
      commitOffset: q.committableOffset,
      droped: q.state === 'dropped',
      lastConsumeTimestamp: q.lastConsumeTimestamp,
      lastLockTimestamp: lockedAt ?? 0,
      lastPullTimestamp: q.lastPullTimestamp,
      locked: lockedAt !== undefined,
      transactionMsgCount: 0,
      transactionMsgMaxOffset: 0,
      transactionMsgMinOffset: 0,
      tryUnlockTimes: 0,
    });
  }
  const topics = new Set<string>([
    ...(registration?.subscriptions ?? []).map((s) => s.topic),
    ...queues.map((q) => q.mq.topic),
  ]);
  const figures = new Map((status?.topics ?? []).map((t) => [t.topic, t]));
  for (const t of figures.keys()) topics.add(t);
  const statusTable: { [topic: string]: FastJsonWritable } = {};
  for (const topic of [...topics].sort()) {
    const f = figures.get(topic);
    statusTable[topic] = {
      consumeFailedMsgs: f?.consumeFailedMsgs ?? 0,
      consumeFailedTPS: f?.consumeFailedTPS ?? 0,
      consumeOKTPS: f?.consumeOKTPS ?? 0,
      consumeRT: f?.consumeRT ?? 0,
      pullRT: f?.pullRT ?? 0,
      pullTPS: f?.pullTPS ?? 0,
    };
  }
  const body: { [key: string]: FastJsonWritable } = {
    mqPopTable: {},
    mqTable,
    properties,
    statusTable,
    subscriptionSet: [...(registration?.subscriptions ?? [])]
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0))
      .map(subscriptionJson),
    userConsumerInfo: {},
  };
  return Buffer.from(stringifyFastJson(body), 'utf8');
}

function mqJson(mq: MessageQueue): { [key: string]: FastJsonWritable } {
  return { brokerName: mq.brokerName, queueId: mq.queueId, topic: mq.topic };
}
