import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AllocateMessageQueueAveragely,
  FAST_PROFILE,
  compareJavaStrings,
  compareMessageQueues,
  createProducer,
  type MessageQueue,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

const FIXTURE = join(__dirname, 'group-member.fixture.cjs');
/** The convergence deadline: 3 × the fast profile's periodic rebalance, so only the notify path can meet it. */
const DEADLINE_MS = 3 * FAST_PROFILE.rebalanceIntervalMs;

type MemberMessage =
  | { type: 'starting' | 'started'; at: number; clientId?: string }
  | { type: 'owned'; queues: string[]; at: number }
  | { type: 'consumed'; seqs: number[] };

/** One child process running one app of the group. */
class Member {
  owned: string[] = [];
  clientId = '';
  alive = true;
  startingAt = 0;
  started = false;
  stderr = '';
  private readonly exited: Promise<number | null>;

  constructor(
    readonly child: ChildProcess,
    onConsumed: (seqs: number[]) => void,
  ) {
    child.on('message', (m: MemberMessage) => {
      if (m.type === 'starting') this.startingAt = m.at;
      else if (m.type === 'started') {
        this.started = true;
        this.clientId = m.clientId ?? '';
      } else if (m.type === 'owned') this.owned = m.queues;
      else if (m.type === 'consumed') onConsumed(m.seqs);
    });
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    void this.exited.then(() => (this.alive = false));
  }

  kill(): Promise<number | null> {
    this.child.kill('SIGKILL');
    return this.exited;
  }

  async stop(): Promise<number | null> {
    if (this.alive) this.child.send('stop');
    return this.exited;
  }
}

const label = (mq: MessageQueue): string => `${mq.brokerName}/${mq.queueId}`;

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
const members: Member[] = [];
beforeAll(async () => {
  cluster = await testCluster();
  harness = new RocketMqHarness(cluster);
});
afterAll(async () => {
  await Promise.all(members.map((m) => (m.alive ? m.kill() : undefined)));
  await harness?.close();
});

describe('a consumer group of child processes on a real cluster', () => {
  it('shares the queues exactly as AVG allocates them and converges after a SIGKILL and after a join, losing nothing', async () => {
    const topic = uniqueName('group');
    const group = uniqueName('g');
    await harness.createTopic(topic, 4);
    const mqAll = ['broker-a', 'broker-b']
      .flatMap((brokerName) => [0, 1, 2, 3].map((queueId) => ({ topic, brokerName, queueId })))
      .sort(compareMessageQueues);
    const strategy = new AllocateMessageQueueAveragely();
    const consumed = new Set<number>();
    const spawn = (name: string): Member => {
      const child = fork(FIXTURE, [], {
        env: {
          ...process.env,
          NAMESRV: cluster.namesrvAddr,
          TOPIC: topic,
          GROUP: group,
          INSTANCE: `${name}-${uniqueName('i')}`,
        },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      const member = new Member(child, (seqs) => {
        for (const s of seqs) consumed.add(s);
      });
      members.push(member);
      return member;
    };
    // Converged: every live member owns exactly what AllocateMessageQueueAveragely gives it over the live client ids.
    const converged = (): boolean => {
      const live = members.filter((m) => m.alive && m.started);
      const cidAll = live.map((m) => m.clientId).sort(compareJavaStrings);
      return live.every(
        (m) =>
          m.owned.join() ===
          strategy.allocate({ consumerGroup: group, currentCID: m.clientId, mqAll, cidAll }).map(label).sort().join(),
      );
    };
    const describeOwners = () =>
      JSON.stringify(members.map((m) => ({ alive: m.alive, owned: m.owned, err: m.stderr.slice(-300) })));

    // Three members share the eight queues.
    const first = [spawn('m1'), spawn('m2'), spawn('m3')];
    await waitFor(() => first.every((m) => m.started) && converged(), { timeoutMs: 60_000, message: describeOwners });

    const producer = await createProducer({ transport: harness.transport(), group: uniqueName('p'), profile: 'fast' });
    const acked = new Set<number>();
    let seq = 0;
    let producing = true;
    const flow = (async () => {
      while (producing) {
        const batch = Array.from({ length: 20 }, () => seq++);
        await Promise.all(batch.map((s) => producer.send({ topic, payload: { seq: s } }).then(() => acked.add(s))));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const timings: Record<string, number> = {};
    try {
      await waitFor(() => consumed.size >= 500, { timeoutMs: 30_000 });

      // SIGKILL: the broker sees the connection close and notifies the survivors at once.
      const killedAt = Date.now();
      await first[2]!.kill();
      await waitFor(converged, { timeoutMs: DEADLINE_MS, intervalMs: 10, message: describeOwners });
      timings.afterSigkillMs = Date.now() - killedAt;

      // A fourth process joins: its heartbeat makes the brokers notify the others.
      const joiner = spawn('m4');
      await waitFor(() => joiner.startingAt > 0, { timeoutMs: 30_000 });
      await waitFor(() => joiner.started && converged() && joiner.owned.length > 0, {
        timeoutMs: DEADLINE_MS,
        intervalMs: 10,
        message: describeOwners,
      });
      timings.afterJoinMs = Date.now() - joiner.startingAt;

      await waitFor(() => acked.size >= consumed.size + 200 || acked.size > 4_000, { timeoutMs: 30_000 });
      producing = false;
      await flow;
      await waitFor(() => [...acked].every((s) => consumed.has(s)), {
        timeoutMs: 30_000,
        message: () => `${[...acked].filter((s) => !consumed.has(s)).length} of ${acked.size} not consumed`,
      });
      expect([...acked].filter((s) => !consumed.has(s))).toEqual([]);
    } finally {
      producing = false;
      await flow;
      await producer.stop();
    }
    const codes = await Promise.all(members.filter((m) => m.alive).map((m) => m.stop()));
    expect(codes.every((c) => c === 0)).toBe(true);
    // Measured, not asserted beyond the deadline: reported in the run output and reports/bench.
    process.stdout.write(`[mqkit] group convergence on RocketMQ: ${JSON.stringify(timings)}\n`);
    const dir = join(__dirname, '..', '..', '..', 'reports', 'bench');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'rocketmq-group-convergence.json'),
      `${JSON.stringify({ at: new Date().toISOString(), deadlineMs: DEADLINE_MS, ...timings }, null, 1)}\n`,
    );
  }, 180_000);
});
