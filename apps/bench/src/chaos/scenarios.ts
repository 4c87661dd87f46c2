import type { RedisServerHandle } from '@mqkit/offset-store-redis/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import type { ChaosGroup } from './chaos-group';

/** What a scenario's faults act on. */
export interface ScenarioContext {
  readonly cluster: RocketMqCluster;
  readonly group: ChaosGroup;
  readonly redis: RedisServerHandle | undefined;
  /** Marks the fault whose recovery is measured: from now, the time until a message sent after it is delivered. */
  fault(label: string): void;
  sleep(ms: number): Promise<void>;
  log(line: string): void;
}

export interface Scenario {
  /** i..vi in the order. */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Which cluster it runs on: the two-master cluster, or the controller-mode one. */
  readonly cluster: 'masters' | 'controller';
  /** The offset store of mqkit's members (Java's always use the broker's). */
  readonly store: 'broker' | 'redis';
  readonly members: number;
  /** Heartbeat interval of both clients' members. */
  readonly heartbeatMs: number;
  run(ctx: ScenarioContext): Promise<void>;
}

/** The broker's channel expiry for the run (RocketMQ: 120 s), which scenario ii outlasts. */
export const CHANNEL_EXPIRED_MS = 10_000;
/**
 * Both clients' heartbeat interval in every scenario (RocketMQ: 30 s): below the lowered channel expiry, or the
 * brokers would expire every member between two heartbeats and the group would churn in every scenario.
 */
export const HEARTBEAT_MS = 3_000;

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'i',
    name: 'member-kill-join',
    description: 'a member SIGKILLed under load, then a new member joins',
    cluster: 'masters',
    store: 'broker',
    members: 3,
    heartbeatMs: HEARTBEAT_MS,
    async run(ctx) {
      await ctx.sleep(5_000);
      ctx.fault('member SIGKILL');
      ctx.group.kill(0);
      await ctx.sleep(5_000);
      await ctx.group.add();
      await ctx.sleep(8_000);
    },
  },
  {
    id: 'ii',
    name: 'member-stop',
    description: `a member SIGSTOPped for 25 s (channel expiry ${CHANNEL_EXPIRED_MS / 1000} s, scanned every 10 s; heartbeats every ${HEARTBEAT_MS / 1000} s), then SIGCONT`,
    cluster: 'masters',
    store: 'broker',
    members: 3,
    heartbeatMs: HEARTBEAT_MS,
    async run(ctx) {
      await ctx.sleep(5_000);
      ctx.fault('member SIGSTOP');
      ctx.group.pause(0);
      await ctx.sleep(25_000);
      ctx.group.resume(0);
      await ctx.sleep(10_000);
    },
  },
  {
    id: 'iii',
    name: 'broker-restart',
    description: 'broker-b SIGKILLed; during the outage a member joins and another is SIGKILLed; broker-b restarted',
    cluster: 'masters',
    store: 'broker',
    members: 3,
    heartbeatMs: HEARTBEAT_MS,
    async run(ctx) {
      await ctx.sleep(5_000);
      ctx.fault('broker SIGKILL');
      await ctx.cluster.stopBroker('broker-b', { force: true });
      await ctx.sleep(2_000);
      await ctx.group.add();
      await ctx.sleep(2_000);
      ctx.group.kill(1);
      await ctx.sleep(2_000);
      await ctx.cluster.startBroker('broker-b');
      await ctx.sleep(10_000);
    },
  },
  {
    id: 'iv',
    name: 'master-failover',
    description: 'controller mode: the master of broker-a SIGKILLed, its replica promoted; the old master rejoins',
    cluster: 'controller',
    store: 'broker',
    members: 3,
    heartbeatMs: HEARTBEAT_MS,
    async run(ctx) {
      await ctx.sleep(5_000);
      const master = (await ctx.cluster.masterOf('broker-a'))!;
      ctx.fault('master SIGKILL');
      await ctx.cluster.stopBroker(master, { force: true });
      const promoted = await ctx.cluster.waitForMaster('broker-a', { notName: master });
      ctx.log(`  ${promoted} promoted`);
      await ctx.sleep(8_000);
      await ctx.cluster.startBroker(master);
      await ctx.sleep(5_000);
    },
  },
  {
    id: 'v',
    name: 'namesrv-down',
    description: 'the name server down for 30 s, then restarted',
    cluster: 'masters',
    store: 'broker',
    members: 3,
    heartbeatMs: HEARTBEAT_MS,
    async run(ctx) {
      await ctx.sleep(5_000);
      ctx.fault('name server SIGKILL');
      await ctx.cluster.stopNameServer({ force: true });
      await ctx.sleep(30_000);
      await ctx.cluster.startNameServer();
      await ctx.sleep(10_000);
    },
  },
  {
    id: 'vi',
    name: 'redis-down',
    description: "Redis down for 10 s (mqkit's Redis offset store; Java, which has none, uses the broker's)",
    cluster: 'masters',
    store: 'redis',
    members: 3,
    heartbeatMs: HEARTBEAT_MS,
    async run(ctx) {
      await ctx.sleep(5_000);
      ctx.fault('Redis down');
      await ctx.redis?.halt();
      await ctx.sleep(10_000);
      await ctx.redis?.restart();
      await ctx.sleep(8_000);
    },
  },
];
