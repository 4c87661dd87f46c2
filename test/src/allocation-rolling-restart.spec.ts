import {
  AllocateMessageQueueConsistentHash,
  AllocateMessageQueueAveragelyByCircle,
  allocationStrategies,
} from '@mqkit/allocation';
import { describeAllocationStrategyContract } from '@mqkit/allocation/testing';
import {
  AllocationError,
  Consumer,
  createConsumerApp,
  createProducer,
  mqKey,
  type AllocationInput,
  type AllocationStrategy,
  type ConsumerApp,
  type Message,
  type MessageQueue,
  type StrategyOption,
} from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { afterEach, describe, expect, it } from 'vitest';

const suffix = `${process.pid}_${Date.now().toString(36)}`;
const TOPIC = `RollingTopic_${suffix}`;
const GROUP = `rolling_group_${suffix}`;

/** Every key consumed, with how often: duplicates are allowed (at-least-once), losses are not. */
const consumed = new Map<number, number>();
const record = (message: Message<{ key: number }>) =>
  consumed.set(message.payload.key, (consumed.get(message.payload.key) ?? 0) + 1);

// The same group twice: the old deployment with RocketMQ's AVG, the new one with BALANCED_RENDEZVOUS by name.
@Consumer({ group: GROUP, topic: TOPIC, strategy: 'AVG', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })
class OldDeployment {
  async handle(message: Message<{ key: number }>) {
    record(message);
  }
}

@Consumer({
  group: GROUP,
  topic: TOPIC,
  strategy: 'BALANCED_RENDEZVOUS',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
})
class NewDeployment {
  async handle(message: Message<{ key: number }>) {
    record(message);
  }
}

// A user's own strategy: contiguous blocks from the end. It passes the package's contract (from the built testing entry).
class ReverseBlocks implements AllocationStrategy {
  readonly name = 'REVERSE_BLOCKS';
  allocate({ currentCID, mqAll, cidAll }: AllocationInput): MessageQueue[] {
    if (!currentCID || mqAll.length === 0 || cidAll.length === 0) throw new AllocationError('empty input');
    const index = cidAll.indexOf(currentCID);
    return index < 0
      ? []
      : mqAll.filter((_, q) => Math.floor(((mqAll.length - 1 - q) * cidAll.length) / mqAll.length) === index);
  }
}
describeAllocationStrategyContract('ReverseBlocks (a user strategy)', () => new ReverseBlocks(), { cases: 50 });

describe('@mqkit/allocation end to end on the embedded broker', () => {
  let broker: EmbeddedBroker | undefined;
  const apps: ConsumerApp[] = [];
  const producers: { stop(): Promise<unknown> }[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0))
      if (app.status().consumers.some((c) => c.state === 'running')) await app.stop({ timeoutMs: 2_000 });
    for (const producer of producers.splice(0)) await producer.stop();
    broker?.close();
  });

  const startApp = async (consumer: new () => object, name: string): Promise<ConsumerApp> => {
    const app = await createConsumerApp({
      transport: memoryTransport({ broker }),
      consumers: [consumer],
      plugins: [allocationStrategies()],
      profile: 'fast',
      instanceName: name,
    });
    apps.push(app);
    await app.start();
    return app;
  };

  it('a group switches from AVG to BALANCED_RENDEZVOUS in a rolling restart without losing a message', async () => {
    broker = new EmbeddedBroker({ brokerNames: ['broker-a', 'broker-b'] });
    broker.createTopic({ topic: TOPIC, queues: 8 }); // 8 per broker: 16 queues
    const producer = await createProducer({
      transport: memoryTransport({ broker }),
      group: `rolling_producer_${suffix}`,
    });
    producers.push(producer);
    let produced = 0;
    let minimum = 600;
    let producing = true;
    // Messages keep arriving during the whole restart, paced so that every phase sees traffic.
    const production = (async () => {
      while (producing || produced < minimum) {
        await producer.send({ topic: TOPIC, payload: { key: produced } });
        produced++;
        if (produced % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();

    const live = [
      await startApp(OldDeployment, 'old-0'),
      await startApp(OldDeployment, 'old-1'),
      await startApp(OldDeployment, 'old-2'),
    ];
    await waitFor(() => live.every((app) => app.status().consumers[0]?.ready) && consumed.size > 50, {
      timeoutMs: 10_000,
      message: 'old deployment consuming',
    });

    // Replace one member at a time: stop an AVG member (drains and commits), start a BALANCED_RENDEZVOUS member.
    const producedAt: number[] = [];
    for (let i = 0; i < 3; i++) {
      producedAt.push(produced);
      const before = consumed.size;
      await live[0]!.stop({ timeoutMs: 5_000 });
      live.shift();
      live.push(await startApp(NewDeployment, `new-${i}`));
      await waitFor(() => live.at(-1)!.status().consumers[0]?.ready && consumed.size > before + 50, {
        timeoutMs: 10_000,
        message: `replacement ${i} consuming`,
      });
    }
    producedAt.push(produced);
    minimum = produced + 200; // and some more once the new deployment is complete
    producing = false;
    await production;

    // The new group settles: every member runs BALANCED_RENDEZVOUS and the 16 queues are split 6/5/5, no overlap.
    const settled = await waitFor(
      () => {
        const statuses = live.map((app) => app.status().consumers[0]!);
        // Only the topic's queues: each member also holds queues of the group's retry topic.
        const mine = statuses.map((s) => s.queues.filter((q) => q.mq.topic === TOPIC));
        const owned = mine.flatMap((queues) => queues.map((q) => mqKey(q.mq)));
        const counts = mine.map((queues) => queues.length).sort();
        return new Set(owned).size === 16 && owned.length === 16 && counts.join() === '5,5,6' ? statuses : undefined;
      },
      {
        timeoutMs: 10_000,
        message: () =>
          `settled assignment (${live.map((a) => a.status().consumers[0]?.queues.filter((q) => q.mq.topic === TOPIC).length).join('/')})`,
      },
    );
    expect(settled.map((s) => s.strategy)).toEqual([
      'BALANCED_RENDEZVOUS',
      'BALANCED_RENDEZVOUS',
      'BALANCED_RENDEZVOUS',
    ]);

    await waitFor(() => consumed.size >= produced, {
      timeoutMs: 15_000,
      message: () => `all ${produced} keys consumed (have ${consumed.size})`,
    });
    const lost = Array.from({ length: produced }, (_, key) => key).filter((key) => !consumed.has(key));
    expect(lost).toEqual([]);
    // Traffic kept flowing through every replacement.
    expect(producedAt.every((count, i) => i === 0 || count > producedAt[i - 1]!)).toBe(true);
    console.info(
      `rolling restart: ${produced} produced, ${consumed.size} distinct consumed, ${[...consumed.values()].reduce((a, b) => a + b, 0) - consumed.size} duplicates`,
    );
  }, 60_000);

  it("@Consumer({ strategy }) takes a registered name, an instance, a class, or a user's own class", async () => {
    broker = new EmbeddedBroker({ brokerNames: ['broker-a', 'broker-b'] });
    const topic = `StrategyForms_${suffix}`;
    broker.createTopic({ topic, queues: 4 });

    class Handler {
      async handle() {}
    }
    const forms: [string, StrategyOption, string][] = [
      ['by_name', 'CONSISTENT_HASH', 'CONSISTENT_HASH'],
      ['by_instance', new AllocateMessageQueueConsistentHash(3), 'CONSISTENT_HASH'],
      ['by_class', AllocateMessageQueueAveragelyByCircle, 'AVG_BY_CIRCLE'],
      ['by_user_class', ReverseBlocks, 'REVERSE_BLOCKS'],
    ];
    const consumers = forms.map(([group, strategy]) => {
      const C = class extends Handler {};
      Consumer({ group: `${group}_${suffix}`, topic, strategy })(C);
      return C;
    });
    const app = await createConsumerApp({
      transport: memoryTransport({ broker }),
      consumers,
      plugins: [allocationStrategies()],
      profile: 'fast',
    });
    apps.push(app);
    await app.start();
    const statuses = await waitFor(
      () => {
        const all = app.status().consumers;
        return all.length === 4 &&
          all.every((c) => c.ready && c.queues.filter((q) => q.mq.topic === topic).length === 8)
          ? all
          : undefined;
      },
      { timeoutMs: 10_000, message: 'four consumers, each alone in its group, owning all 8 queues' },
    );
    const byGroup = Object.fromEntries(statuses.map((s) => [s.group.replace(`_${suffix}`, ''), s.strategy]));
    expect(byGroup).toEqual(Object.fromEntries(forms.map(([group, , name]) => [group, name])));
  }, 30_000);
});
