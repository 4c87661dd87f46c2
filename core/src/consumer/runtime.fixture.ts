import { EventBus } from '../events/event-bus';
import { ConsumeStats } from './queue/consume-stats';
import type { MqkitEventName, MqkitEvents } from '../events/event-map';
import { jsonCodec } from '../definition/json.codec';
import type { MessageRecord } from '../model/message';
import type { MessageQueue } from '../model/message-queue';
import { parseSubscription } from '../model/subscription';
import type { ConsumerOptions } from '../options/consumer-options';
import { IssueCollector } from '../options/option-checks';
import { FAST_PROFILE, type Profile } from '../options/profile';
import { resolveGroupOptions } from '../options/validate-consumer-options';
import type { OffsetStore, OffsetWrite } from '../spi/offset-store';
import { deferred, type Deferred } from '../util/deferred';
import { ByteBudget } from './queue/byte-budget';
import { ConsumeProgress } from './progress/consume-progress';
import { QueueWork } from './queue/queue-work';
import type { Codec } from '../spi/codec';
import type { GroupContext } from './queue/group-context';
import type { HandlerBinding } from './delivery/handler-binding';
import { ProcessQueue } from './queue/process-queue';

/*
 * Builders for the runtime's unit specs: a GroupContext, records, process queues, a handler binding and an
 * in-memory offset store that records what was persisted. Cheap because every class takes a context and the few
 * collaborators it calls.
 */

export const MQ: MessageQueue = { topic: 'T', brokerName: 'broker-a', queueId: 0 };

export interface TestGroup extends GroupContext {
  readonly controller: AbortController;
  /** Every event emitted, in order. */
  readonly seen: { name: MqkitEventName; payload: unknown }[];
}

/** A group context with resolved options (fast profile) and an event log of the given events. */
export function testGroup(
  options: Partial<ConsumerOptions> = {},
  watch: readonly MqkitEventName[] = ['consumer.error', 'consumer.consume', 'consumer.retry'],
  profile: Partial<Profile> = {},
): TestGroup {
  const issues = new IssueCollector('Spec');
  const resolved = resolveGroupOptions(issues, { group: 'g', ...options });
  if (issues.issues.length > 0) throw new Error(JSON.stringify(issues.issues));
  const events = new EventBus();
  const seen: { name: MqkitEventName; payload: unknown }[] = [];
  for (const name of watch) events.on(name, (payload) => seen.push({ name, payload }));
  const controller = new AbortController();
  return {
    group: 'g',
    clientId: '127.0.0.1@spec',
    options: resolved,
    profile: { ...FAST_PROFILE, ...profile },
    events,
    budget: new ByteBudget(1 << 30),
    stats: new ConsumeStats(),
    signal: controller.signal,
    controller,
    seen,
  };
}

/** The payloads of one event kind the group saw. */
export function eventsOf<K extends MqkitEventName>(group: TestGroup, name: K): MqkitEvents[K][] {
  return group.seen.filter((e) => e.name === name).map((e) => e.payload as MqkitEvents[K]);
}

/** A stored record of `mq` at `offset`, body `{"i":offset}` unless given. */
export function record(
  offset: number,
  options: { mq?: MessageQueue; properties?: Record<string, string>; body?: Buffer; reconsumeTimes?: number } = {},
): MessageRecord {
  const mq = options.mq ?? MQ;
  return {
    topic: mq.topic,
    brokerName: mq.brokerName,
    queueId: mq.queueId,
    queueOffset: offset,
    commitLogOffset: 1000 + offset,
    flag: 0,
    sysFlag: 0,
    body: options.body ?? Buffer.from(JSON.stringify({ i: offset })),
    properties: { UNIQ_KEY: `K${offset}`, ...options.properties },
    bornTimestamp: 1,
    bornHost: '127.0.0.1:1',
    storeTimestamp: 2,
    storeHost: '127.0.0.1:10911',
    reconsumeTimes: options.reconsumeTimes ?? 0,
    preparedTransactionOffset: 0,
    offsetMsgId: `OFF${offset}`,
    bodyCRC: 0,
    storeSize: 100,
  };
}

export function records(from: number, to: number, mq: MessageQueue = MQ): MessageRecord[] {
  const out: MessageRecord[] = [];
  for (let i = from; i < to; i++) out.push(record(i, { mq }));
  return out;
}

/** A binding that calls `fn` with what the handler receives. */
export function binding(
  fn: (input: unknown, ctx: unknown) => unknown,
  options: { topic?: string; batch?: boolean; reply?: boolean } = {},
): HandlerBinding {
  return {
    topic: options.topic ?? 'T',
    batch: options.batch ?? false,
    reply: options.reply ?? false,
    codec: jsonCodec,
    className: 'Spec',
    method: 'handle',
    call: fn,
  };
}

/** An OffsetStore in memory: `persisted` is what reached "the store", `writes` every list it was handed. */
export class MemoryOffsetStore implements OffsetStore {
  readonly persisted = new Map<string, number>();
  readonly writes: OffsetWrite[][] = [];
  failWrite: Error | undefined;
  /** When set, write() waits for it. */
  gate: Deferred | undefined;

  async load(): Promise<void> {}
  async read(mq: MessageQueue): Promise<number> {
    return this.persisted.get(key(mq)) ?? -1;
  }
  async write(entries: readonly OffsetWrite[]): Promise<void> {
    this.writes.push([...entries]);
    await this.gate?.promise;
    if (this.failWrite) throw this.failWrite;
    for (const { mq, offset } of entries) this.persisted.set(key(mq), offset);
  }
  stored(mq: MessageQueue = MQ): number | undefined {
    return this.persisted.get(key(mq));
  }
  /** The queue ids of each write, in order. */
  writtenQueueIds(): number[][] {
    return this.writes.map((entries) => entries.map((e) => e.mq.queueId).sort());
  }
}

function key(mq: MessageQueue): string {
  return `${mq.topic}/${mq.brokerName}/${mq.queueId}`;
}

/** A process queue of `group` starting at `offset`, its progress begun in `progress`. */
export function processQueue(
  group: GroupContext,
  progress: ConsumeProgress,
  offset = 0,
  mq: MessageQueue = MQ,
  topic = mq.topic,
): ProcessQueue {
  return new ProcessQueue(mq, parseSubscription(topic, '*'), progress.begin(mq, offset), offset, group.signal);
}

export { deferred };

/** Resolves after every pending microtask and one turn of the event loop. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The group's QueueWork over `progress`, wrapping records with the invoker's codecs (JSON without one). */
export function queueWork(
  group: GroupContext,
  progress: ConsumeProgress,
  invoker?: { bindingOf(pq: ProcessQueue, record: MessageRecord): { readonly codec: Codec } | undefined },
): QueueWork {
  return new QueueWork(
    group.budget,
    progress,
    (pq, record) => invoker?.bindingOf(pq, record)?.codec ?? jsonCodec,
    group.namespace,
  );
}
