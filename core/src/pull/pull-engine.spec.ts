import { afterEach, describe, expect, it } from 'vitest';
import { ClientHost } from '../app/client-host';
import { jsonCodec } from '../definition/json.codec';
import type { Message } from '../model/message';
import { mqKey, type MessageQueue } from '../model/message-queue';
import { parseSubscription, type SubscriptionData } from '../model/subscription';
import { FakeBroker } from '../spi/fake-broker.fixture';
import { waitFor } from '../testing/wait-for';
import { childController } from '../util/abort';
import type { ProcessQueue } from '../consumer/queue/process-queue';
import { PollBuffer } from './poll-buffer';
import type { PullConsumerOptions } from './pull-consumer-options';
import { resolvePullConsumerOptions } from './pull-consumer-options';
import { PullEngine } from './pull-engine';
import { pullGroupContext } from './pull-engine-setup';

const mq = (queueId: number, topic = 'T'): MessageQueue => ({ topic, brokerName: 'broker-a', queueId });

/** An engine on the fake broker, built as createPullConsumer builds it; `close()` leaves as `close()` does. */
interface OpenEngine {
  readonly engine: PullEngine;
  readonly buffer: PollBuffer;
  readonly subscriptions: Map<string, SubscriptionData>;
  readonly clientId: string;
  readonly budgetInUse: () => number;
  /** Assigns the queues, subscribed with `*` as the pull consumer's assign() does, and waits for them to be added. */
  assign(queues: MessageQueue[]): Promise<void>;
  /** Takes what the buffer holds of the queues `from` accepts, hands it to the engine, and returns the messages. */
  take(from?: (pq: ProcessQueue) => boolean): Message[];
  close(): Promise<void>;
}

let broker: FakeBroker;
const opened: OpenEngine[] = [];

afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

async function openEngine(options: Partial<PullConsumerOptions> = {}): Promise<OpenEngine> {
  const full: PullConsumerOptions = {
    transport: broker.plugin(),
    group: 'g',
    // No periodic heartbeat or rebalance within a test: what the engine sends, it sends because it was told to.
    profile: { base: 'fast', heartbeatIntervalMs: 60_000, rebalanceIntervalMs: 60_000, routeRefreshMs: 60_000 },
    instanceName: 'spec',
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    ...options,
  };
  const resolved = resolvePullConsumerOptions(full);
  const host = new ClientHost('createPullConsumer', full);
  const transport = await host.connect(full.transport);
  await host.register([]);
  const client = new AbortController();
  const group = childController(client.signal);
  const ctx = pullGroupContext(host, resolved, group.signal);
  const buffer = new PollBuffer(jsonCodec);
  const subscriptions = new Map<string, SubscriptionData>();
  const engine = await PullEngine.open({
    host,
    ctx,
    options: full,
    resolved,
    transport,
    subscriptions,
    buffer,
    signal: client.signal,
    whenRunning: () => undefined,
  });
  let closing: Promise<void> | undefined;
  const o: OpenEngine = {
    engine,
    buffer,
    subscriptions,
    clientId: host.clientId,
    budgetInUse: () => ctx.budget.inUse,
    assign: async (queues) => {
      for (const q of queues)
        if (!subscriptions.has(q.topic)) subscriptions.set(q.topic, parseSubscription(q.topic, '*'));
      await engine.assign(
        [...new Set(queues.map((q) => q.topic))].map((t) => [t, queues.filter((q) => q.topic === t)]),
      );
    },
    take: (from = () => true) => engine.consumed(buffer.take(1_000, (pq) => !from(pq))),
    close: () => {
      closing ??= (async () => {
        group.abort();
        buffer.close();
        await engine.leave();
        client.abort();
        await engine.stopped();
        await host.close();
      })();
      return closing;
    },
  };
  opened.push(o);
  return o;
}

const offsetsOf = (messages: readonly Message[], queueId: number) =>
  messages.filter((m) => m.queueId === queueId).map((m) => m.queueOffset);

describe('PullEngine: assigned queues', () => {
  it('pulls assigned queues into the buffer; consumed() hands taken messages out in offset order and frees their bytes', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 5);
    broker.add(mq(1), 3);
    const { engine, buffer, assign, take, budgetInUse } = await openEngine({ autoCommit: false });
    await assign([mq(0), mq(1)]);
    await waitFor(() => buffer.queued === 8, { message: () => `${buffer.queued} buffered` });
    expect(engine.queues.active().map((pq) => pq.msgCount)).toEqual([5, 3]);
    // The budget holds the cached bodies (and what the held long polls reserved).
    const before = budgetInUse();
    const taken = take();
    expect(offsetsOf(taken, 0)).toEqual([0, 1, 2, 3, 4]);
    expect(offsetsOf(taken, 1)).toEqual([0, 1, 2]);
    // Taken messages leave their queues: flow control and the app's byte budget no longer count them.
    expect(engine.queues.active().map((pq) => pq.msgCount)).toEqual([0, 0]);
    expect(before - budgetInUse()).toBe(taken.reduce((sum, m) => sum + m.body.length, 0));
    // What arrives later is pulled on.
    broker.add(mq(1), 2);
    await waitFor(() => buffer.queued === 2, { message: () => `${buffer.queued} buffered` });
    expect(offsetsOf(take(), 1)).toEqual([3, 4]);
  });

  it('tells the brokers about the assignment at once, heartbeating as a pull consumer (CONSUME_ACTIVELY)', async () => {
    broker = new FakeBroker();
    const { engine, subscriptions } = await openEngine();
    const subscription = parseSubscription('T', '*');
    subscriptions.set('T', subscription);
    expect(broker.heartbeats).toEqual([]);
    await engine.assign([['T', [mq(0)]]]);
    await waitFor(() => broker.heartbeats.length > 0, { message: 'a heartbeat after assign' });
    expect(broker.heartbeats.at(-1)).toEqual([
      {
        group: 'g',
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        subscriptions: [subscription],
        consumeType: 'CONSUME_ACTIVELY',
      },
    ]);
    // Assigned queues never move: no rebalance asks for the group's members.
    expect(engine.unroutedTopics()).toEqual([]);
    expect(broker.memberLookups).toEqual([]);
  });
});

describe('PullEngine: commits', () => {
  it('without autoCommit, commit() stores the offset after the last taken message, of the queues taken from only', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 5);
    broker.add(mq(1), 5);
    const { engine, buffer, assign, take } = await openEngine({ autoCommit: false });
    await assign([mq(0), mq(1)]);
    await waitFor(() => buffer.queued === 10);
    expect(take((pq) => pq.mq.queueId === 0)).toHaveLength(5);
    expect(broker.commits).toEqual([]);
    await engine.commit();
    expect(broker.committed).toEqual(new Map([[mqKey(mq(0)), 5]]));
  });

  it('runs commits one at a time; a failed one rejects with the store’s error and the next one runs', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 5);
    const { engine, buffer, assign, take } = await openEngine({ autoCommit: false });
    await assign([mq(0)]);
    await waitFor(() => buffer.queued === 5);
    take();
    let open!: () => void;
    broker.commitGate = new Promise((resolve) => (open = resolve));
    const first = engine.commit();
    await waitFor(() => broker.commits.length === 1);
    broker.add(mq(0), 3);
    await waitFor(() => buffer.queued === 3);
    take();
    const second = engine.commit();
    await new Promise((resolve) => setImmediate(resolve));
    // The second commit waits for the first to finish.
    expect(broker.commits).toEqual([{ mq: mq(0), offset: 5 }]);
    open();
    await first;
    await second;
    expect(broker.commits).toEqual([
      { mq: mq(0), offset: 5 },
      { mq: mq(0), offset: 8 },
    ]);

    broker.add(mq(0), 1);
    await waitFor(() => buffer.queued === 1);
    take();
    broker.commitError = new Error('broker down');
    await expect(engine.commit()).rejects.toThrow('broker down');
    broker.commitError = undefined;
    await engine.commit();
    expect(broker.committed.get(mqKey(mq(0)))).toBe(9);
  });

  it('with autoCommit, stores what was taken every autoCommitIntervalMs, and nothing of a queue never taken from', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 4);
    broker.add(mq(1), 4);
    const { buffer, assign, take } = await openEngine({ autoCommitIntervalMs: 1_000 });
    await assign([mq(0), mq(1)]);
    await waitFor(() => buffer.queued === 8);
    take((pq) => pq.mq.queueId === 1);
    await waitFor(() => broker.committed.get(mqKey(mq(1))) === 4, { message: 'the periodic commit' });
    expect(broker.committed.has(mqKey(mq(0)))).toBe(false);
  });
});

describe('PullEngine: subscriptions', () => {
  it('subscribed() allocates the routed queues among the members; a topic without a route is named unrouted', async () => {
    broker = new FakeBroker();
    broker.routes.set('T', [mq(0), mq(1)]);
    const { engine, subscriptions, clientId } = await openEngine();
    broker.members = [clientId];
    subscriptions.set('T', parseSubscription('T', '*'));
    engine.subscribed();
    await waitFor(() => engine.queues.active().length === 2, { message: 'both queues of T owned' });
    subscriptions.delete('T');
    engine.unsubscribed();
    await waitFor(() => engine.queues.active().length === 0, { timeoutMs: 5_000, message: 'the queues of T released' });

    subscriptions.set('U', parseSubscription('U', '*'));
    engine.subscribed();
    await waitFor(() => engine.unroutedTopics().includes('U'), { timeoutMs: 5_000, message: 'U unrouted' });
    expect(engine.unroutedTopics()).toEqual(['U']);
  });

  it('leaves only once a commit in flight stored its offsets: then releases the queues and unregisters the group', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 5);
    const opened = await openEngine({ autoCommit: false });
    const { engine, buffer, assign, take } = opened;
    await assign([mq(0)]);
    await waitFor(() => buffer.queued === 5);
    take();
    let open!: () => void;
    broker.commitGate = new Promise((resolve) => (open = resolve));
    const committing = engine.commit();
    await waitFor(() => broker.commits.length === 1);
    // Taken after the commit and never committed: without autoCommit the release must not store these.
    broker.add(mq(0), 3);
    await waitFor(() => buffer.queued === 3);
    take();
    let left = false;
    const leaving = opened.close().then(() => (left = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(left).toBe(false);
    // Nothing of the release started: it waits for the commit in flight.
    expect(broker.commits).toHaveLength(1);
    expect(broker.unregistered).toEqual([]);
    open();
    await committing;
    await leaving;
    expect(broker.committed.get(mqKey(mq(0)))).toBe(5);
    expect(broker.unregistered).toEqual(['g']);
    expect(engine.queues.active()).toEqual([]);
  });
});
