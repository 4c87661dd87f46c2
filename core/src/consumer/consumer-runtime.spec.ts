import { afterEach, describe, expect, it } from 'vitest';
import { AllocateMessageQueueAveragely } from '../allocation/averagely.strategy';
import type { ConsumerDefinition } from '../definition/consumer-definition';
import { jsonCodec } from '../definition/json.codec';
import { EventBus } from '../events/event-bus';
import type { MqkitEventName } from '../events/event-map';
import type { Message } from '../model/message';
import type { MessageQueue } from '../model/message-queue';
import { parseSubscription } from '../model/subscription';
import type { ConsumerOptions } from '../options/consumer-options';
import { IssueCollector } from '../options/option-checks';
import { FAST_PROFILE, type Profile } from '../options/profile';
import { resolveGroupOptions } from '../options/validate-consumer-options';
import { FakeBroker } from '../spi/fake-broker.fixture';
import { waitFor } from '../testing/wait-for';
import { ConsumerRuntime, type ConsumerRuntimeHost } from './consumer-runtime';
import { ByteBudget } from './queue/byte-budget';
import { MemoryOffsetStore, flush } from './runtime.fixture';

const mq = (queueId: number, topic = 'T'): MessageQueue => ({ topic, brokerName: 'broker-a', queueId });

/** What the handler of a spec does with a message; the default handles it at once. */
type Handle = (message: Message<{ i: number }>) => unknown;

/** The group `g` subscribed to T with the handler, its options resolved as an app resolves them. */
function definition(handle: Handle, options: Partial<ConsumerOptions> = {}): ConsumerDefinition {
  const issues = new IssueCollector('Spec');
  const resolved = resolveGroupOptions(issues, {
    group: 'g',
    topic: 'T',
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    ...options,
  });
  if (issues.issues.length > 0) throw new Error(JSON.stringify(issues.issues));
  return {
    group: 'g',
    options: resolved,
    sources: ['Spec'],
    subscriptions: [
      {
        topic: 'T',
        subscription: parseSubscription('T', '*'),
        batch: false,
        codec: jsonCodec,
        reply: false,
        handler: { className: 'Spec', method: 'handle', resolve: () => ({ handle }) },
      },
    ],
  };
}

interface Running {
  readonly runtime: ConsumerRuntime;
  readonly store: MemoryOffsetStore;
  readonly events: { name: MqkitEventName; payload: unknown }[];
  readonly handled: number[];
  readonly app: AbortController;
}

let broker: FakeBroker;
const running: Running[] = [];

/** What an app gives its group: client c1 on the fake broker, no hooks. */
function runtimeHost(events: EventBus, signal: AbortSignal, profile: Partial<Profile> = {}): ConsumerRuntimeHost {
  return {
    clientId: 'c1',
    profile: { ...FAST_PROFILE, rebalanceIntervalMs: 60_000, routeRefreshMs: 60_000, ...profile },
    events,
    budget: new ByteBudget(1 << 30),
    signal,
    transport: broker.roles(),
    hooks: [],
    onAssignmentChanged: () => undefined,
  };
}

afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.runtime.stop(Date.now() + 1_000);
    r.app.abort();
  }
});

/**
 * A started runtime of group g on the fake broker (T routed with two queues, this client its only member). Periodic
 * rebalances and persists are out of the spec's way unless `profile` brings them back.
 */
async function start(
  handle: Handle | undefined,
  options: Partial<ConsumerOptions> = {},
  profile: Partial<Profile> = {},
): Promise<Running> {
  const handled: number[] = [];
  const events: Running['events'] = [];
  const bus = new EventBus();
  for (const name of ['consumer.started', 'consumer.stopped', 'consumer.paused', 'consumer.error'] as const)
    bus.on(name, (payload) => events.push({ name, payload }));
  const app = new AbortController();
  const store = new MemoryOffsetStore();
  broker.routes.set('T', [mq(0), mq(1)]);
  broker.members = ['c1'];
  const runtime = new ConsumerRuntime(
    definition((m) => {
      handled.push(m.queueId * 100 + m.queueOffset);
      return handle?.(m);
    }, options),
    runtimeHost(bus, app.signal, profile),
    new AllocateMessageQueueAveragely(),
    store,
  );
  runtime.bindHandlers();
  await runtime.start();
  const r = { runtime, store, events, handled, app };
  running.push(r);
  return r;
}

const cached = (runtime: ConsumerRuntime) => runtime.status().queues.reduce((sum, q) => sum + q.cachedCount, 0);

describe('ConsumerRuntime: what the broker hears', () => {
  it('registers the group with its topic and, in CLUSTERING, its retry topic; BROADCASTING has none', async () => {
    broker = new FakeBroker();
    const clustering = new ConsumerRuntime(
      definition(() => undefined),
      runtimeHost(new EventBus(), new AbortController().signal),
      new AllocateMessageQueueAveragely(),
      new MemoryOffsetStore(),
    );
    const registration = clustering.registration();
    expect(registration).toMatchObject({
      group: 'g',
      messageModel: 'CLUSTERING',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    expect(registration.subscriptions.map((sub) => [sub.topic, sub.expressionType, sub.expression])).toEqual([
      ['T', 'TAG', '*'],
      ['%RETRY%g', 'TAG', '*'],
    ]);
    const broadcasting = new ConsumerRuntime(
      definition(() => undefined, { messageModel: 'BROADCASTING' }),
      runtimeHost(new EventBus(), new AbortController().signal),
      new AllocateMessageQueueAveragely(),
      new MemoryOffsetStore(),
    );
    expect(broadcasting.registration().subscriptions.map((s) => s.topic)).toEqual(['T']);
  });
});

describe('ConsumerRuntime: start', () => {
  it('takes the routed queues, hands each message to the handler once, and persists the offsets every persistIntervalMs', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 3);
    broker.add(mq(1), 2);
    let answer!: () => void;
    broker.membersGate = new Promise((resolve) => (answer = resolve));
    const { runtime, store, handled, events } = await start(undefined);
    expect(events.map((e) => e.name)).toEqual(['consumer.started']);
    // Not ready before its first rebalance pass balanced.
    await waitFor(() => broker.memberLookups.length > 0);
    expect(runtime.status()).toMatchObject({ state: 'running', ready: false });
    answer();
    await waitFor(() => handled.length === 5, { message: () => `handled ${handled}` });
    expect(handled.sort((a, b) => a - b)).toEqual([0, 1, 2, 100, 101]);
    await waitFor(() => store.stored(mq(0)) === 3 && store.stored(mq(1)) === 2, { message: 'persisted' });
    const status = runtime.status();
    expect(status).toMatchObject({ group: 'g', state: 'running', ready: true, paused: false, inFlight: 0 });
    expect(status.queues.map((q) => q.mq.queueId).sort()).toEqual([0, 1]);
  });
});

describe('ConsumerRuntime: pause', () => {
  it('pause() resolves once the running call finished; then what arrives stays cached until resume()', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 1);
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const { runtime, handled, events } = await start((m) => (m.queueOffset === 0 ? blocked : undefined));
    await waitFor(() => handled.length === 1);
    let paused = false;
    const pausing = runtime.pause().then(() => (paused = true));
    expect(runtime.isPaused).toBe(true);
    expect(events.filter((e) => e.name === 'consumer.paused')).toEqual([
      { name: 'consumer.paused', payload: { group: 'g', reason: 'user' } },
    ]);
    await flush();
    expect(paused).toBe(false);
    release();
    await pausing;

    // The pull the broker was holding answers with these: they are cached, and no call starts.
    broker.add(mq(0), 2);
    broker.add(mq(1), 2);
    await waitFor(() => cached(runtime) === 4, { message: () => `cached ${cached(runtime)}` });
    expect(handled).toEqual([0]);
    expect(runtime.status().paused).toBe(true);
    runtime.resume();
    expect(runtime.isPaused).toBe(false);
    await waitFor(() => handled.length === 5, { message: () => `handled ${handled}` });
    expect(handled.sort((a, b) => a - b)).toEqual([0, 1, 2, 100, 101]);
  });
});

describe('ConsumerRuntime: stop and crash', () => {
  it('stop() drains a running call, persists, unregisters the group and reports each queue', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 2);
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const { runtime, store, handled, events } = await start(
      (m) => (m.queueOffset === 1 ? blocked : undefined),
      {},
      {
        persistIntervalMs: 60_000,
      },
    );
    await waitFor(() => handled.length === 2);
    let stopped = false;
    const stopping = runtime.stop(Date.now() + 5_000).then((reports) => {
      stopped = true;
      return reports;
    });
    await flush();
    expect(stopped).toBe(false);
    expect(broker.unregistered).toEqual([]);
    release();
    const reports = await stopping;
    expect(reports.map((r) => [r.mq.queueId, r.offset, r.drained, r.abandoned]).sort()).toEqual([
      [0, 2, true, 0],
      [1, 0, true, 0],
    ]);
    expect(store.stored(mq(0))).toBe(2);
    expect(broker.unregistered).toEqual(['g']);
    expect(runtime.status().state).toBe('stopped');
    expect(events.map((e) => e.name)).toEqual(['consumer.started', 'consumer.stopped']);
  });

  it('stop() gives up a call still running at the deadline: its message stays uncommitted', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 3);
    const { runtime, store, handled } = await start((m) =>
      m.queueOffset === 1 ? new Promise(() => undefined) : undefined,
    );
    await waitFor(() => handled.length === 3);
    const reports = await runtime.stop(Date.now() + 100);
    const q0 = reports.find((r) => r.mq.queueId === 0)!;
    expect([q0.offset, q0.drained, q0.abandoned]).toEqual([1, false, 1]);
    expect(store.stored(mq(0))).toBe(1);
  });

  it('crash() stops at once: nothing more is handled, persisted or unregistered', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 2);
    const { runtime, store, handled } = await start(undefined, {}, { persistIntervalMs: 60_000 });
    await waitFor(() => handled.length === 2);
    runtime.crash();
    expect(runtime.status().state).toBe('stopped');
    broker.add(mq(0), 2);
    expect(await runtime.stop(Date.now() + 1_000)).toEqual([]);
    await flush();
    expect(handled).toHaveLength(2);
    expect(store.stored(mq(0))).toBeUndefined();
    expect(broker.unregistered).toEqual([]);
  });

  it('recoverFromStall() drops the queues without committing and takes them back at their stored offsets', async () => {
    broker = new FakeBroker();
    broker.add(mq(0), 2);
    const { runtime, store, handled, events } = await start(undefined, {}, { persistIntervalMs: 60_000 });
    await waitFor(() => handled.length === 2);
    runtime.recoverFromStall(15_000);
    expect(
      events.filter((e) => e.name === 'consumer.error').map((e) => (e.payload as { where: string }).where),
    ).toEqual(['stall']);
    // Nothing was stored: the queue is read again from its start.
    await waitFor(() => handled.length === 4, { message: () => `handled ${handled}` });
    expect(handled).toEqual([0, 1, 0, 1]);
    expect(store.stored(mq(0))).toBeUndefined();
  });
});
