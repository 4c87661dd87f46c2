import type { RedisServerHandle } from '@mqkit/offset-store-redis/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import type { ChaosGroup } from './chaos-group';
import {
  type ChaosRandom,
  describeStep,
  describeTimeline,
  pick,
  shuffle,
  type Step,
  TimelineBuilder,
} from './timeline';

/** What a scenario's faults act on. */
export interface ScenarioContext {
  readonly cluster: Pick<
    RocketMqCluster,
    'stopBroker' | 'startBroker' | 'masterOf' | 'waitForMaster' | 'stopNameServer' | 'startNameServer'
  >;
  readonly group: Pick<ChaosGroup, 'add' | 'kill' | 'pause' | 'resume'>;
  readonly redis: Pick<RedisServerHandle, 'halt' | 'restart'> | undefined;
  /** The run's seeded random source: the timeline is drawn from it alone, so both clients get the same one. */
  readonly random: ChaosRandom;
  /** Marks the fault whose recovery is measured: from now, the time until a message sent after it is delivered. */
  fault(label: string): void;
  sleep(ms: number): Promise<void>;
  log(line: string): void;
}

export type ConsumeMode = 'CONCURRENTLY' | 'ORDERLY';

export interface Scenario {
  /** i..vi in the order, then the later ones by name. */
  readonly id: string;
  readonly name: string;
  /** A few words for the reliability table. */
  readonly title: string;
  readonly description: string;
  /** Which cluster it runs on: the two-master cluster, or the controller-mode one. */
  readonly cluster: 'masters' | 'controller';
  /** The offset store of mqkit's members (Java's always use the broker's). */
  readonly store: 'broker' | 'redis';
  readonly members: number;
  /** Heartbeat interval of both clients' members. */
  readonly heartbeatMs: number;
  /** The producer's steady load, msg/s. */
  readonly rate: number;
  /** Whether its faults move queues between members: those scenarios run ORDERLY as well as CONCURRENTLY. */
  readonly movesQueues: boolean;
  /** The timeline for one seed: everything it places is drawn from `random`, nothing from the run. */
  timeline(random: ChaosRandom): Step[];
  /** Draws the timeline from ctx.random, logs it, and acts it out. */
  run(ctx: ScenarioContext): Promise<void>;
}

/** The broker's channel expiry for the run (RocketMQ: 120 s), which scenario ii outlasts. */
export const CHANNEL_EXPIRED_MS = 10_000;
/**
 * Both clients' heartbeat interval in every scenario (RocketMQ: 30 s): below the lowered channel expiry, or the
 * brokers would expire every member between two heartbeats and the group would churn in every scenario.
 */
export const HEARTBEAT_MS = 3_000;
/** The load of every scenario but storm. */
export const RATE = 300;
/** The load of storm. */
export const STORM_RATE = 1_000;

/** The waits of every timeline, in ms, around the fixed values the scenarios had before they were seeded. */
export const WAITS = {
  /** Load on a settled group before the first fault (was 5 s). */
  beforeFault: [3_000, 7_000],
  /** i: from the SIGKILL to the join (was 5 s). */
  killToJoin: [3_000, 7_000],
  /** i: after the join (was 8 s). */
  afterJoin: [6_000, 10_000],
  /**
   * ii: how long the member stays stopped (was 25 s). Always past the channel expiry and the 10 s scan that finds
   * it (at most 20 s), so the brokers always drop the member.
   */
  stopped: [21_000, 30_000],
  /** After a member, broker or server is back, until the drain (was 10 s). */
  afterRecovery: [8_000, 12_000],
  /** iii and storm: each gap between the broker's SIGKILL, the member events and the restart (was 2 s). */
  outageGap: [1_000, 3_000],
  /** iv: from the promotion to the old master's restart (was 8 s). */
  promotedToRestart: [5_000, 11_000],
  /** iv: after the old master's restart (was 5 s). */
  afterMasterRestart: [3_000, 7_000],
  /** v: the name server's outage (was 30 s). */
  namesrvDown: [20_000, 40_000],
  /** vi: Redis's outage (was 10 s). */
  redisDown: [5_000, 15_000],
  /** vi: after Redis is back (was 8 s). */
  afterRedis: [6_000, 10_000],
} as const satisfies Record<string, readonly [number, number]>;

const BROKERS = ['broker-a', 'broker-b'] as const;
const MEMBERS = 3;

/**
 * Acts a timeline out. The first step that is not a wait is the fault whose recovery is measured; a join checks
 * that the group gave the new member the index the timeline named.
 */
export async function runTimeline(steps: readonly Step[], ctx: ScenarioContext): Promise<void> {
  let faulted = false;
  let stoppedMaster: string | undefined;
  for (const step of steps) {
    if (step.kind === 'wait') {
      await ctx.sleep(step.ms);
      continue;
    }
    if (!faulted) {
      faulted = true;
      ctx.fault(describeStep(step));
    }
    switch (step.kind) {
      case 'kill':
        ctx.group.kill(step.member);
        break;
      case 'join': {
        const member = await ctx.group.add();
        if (member !== step.member)
          throw new Error(`the timeline's join is member ${step.member}, the group's ${member}`);
        break;
      }
      case 'stop':
        ctx.group.pause(step.member);
        break;
      case 'cont':
        ctx.group.resume(step.member);
        break;
      case 'broker-kill':
        await ctx.cluster.stopBroker(step.broker, { force: true });
        break;
      case 'broker-start':
        await ctx.cluster.startBroker(step.broker);
        break;
      case 'master-kill': {
        const master = await ctx.cluster.masterOf(step.broker);
        if (!master) throw new Error(`${step.broker} has no master`);
        stoppedMaster = master;
        await ctx.cluster.stopBroker(master, { force: true });
        const promoted = await ctx.cluster.waitForMaster(step.broker, { notName: master });
        ctx.log(`  ${promoted} promoted`);
        break;
      }
      case 'master-start':
        if (!stoppedMaster) throw new Error('master-start without a master-kill before it');
        await ctx.cluster.startBroker(stoppedMaster);
        break;
      case 'namesrv-kill':
        await ctx.cluster.stopNameServer({ force: true });
        break;
      case 'namesrv-start':
        await ctx.cluster.startNameServer();
        break;
      case 'redis-halt':
        await ctx.redis?.halt();
        break;
      case 'redis-restart':
        await ctx.redis?.restart();
        break;
    }
  }
}

type ScenarioDefinition = Omit<Scenario, 'run' | 'cluster' | 'store' | 'members' | 'heartbeatMs' | 'rate'> &
  Partial<Pick<Scenario, 'cluster' | 'store' | 'members' | 'heartbeatMs' | 'rate'>>;

/** A scenario with the defaults (two masters, broker offset store, 3 members, 300 msg/s) and the shared run. */
function scenario(definition: ScenarioDefinition): Scenario {
  return {
    cluster: 'masters',
    store: 'broker',
    members: MEMBERS,
    heartbeatMs: HEARTBEAT_MS,
    rate: RATE,
    ...definition,
    async run(ctx) {
      const steps = this.timeline(ctx.random);
      ctx.log(`  timeline: ${describeTimeline(steps)}`);
      await runTimeline(steps, ctx);
    },
  };
}

const s = (range: readonly [number, number]): string => `${range[0] / 1000}-${range[1] / 1000} s`;

export const SCENARIOS: readonly Scenario[] = [
  scenario({
    id: 'i',
    name: 'member-kill-join',
    title: 'member SIGKILL, then a join',
    description: `after ${s(WAITS.beforeFault)} a member (drawn) SIGKILLed under load, ${s(WAITS.killToJoin)} later a new member joins`,
    movesQueues: true,
    timeline: (random) =>
      new TimelineBuilder(random, MEMBERS)
        .wait(...WAITS.beforeFault)
        .kill()
        .wait(...WAITS.killToJoin)
        .join()
        .wait(...WAITS.afterJoin).steps,
  }),
  scenario({
    id: 'ii',
    name: 'member-stop',
    title: `member SIGSTOP ${s(WAITS.stopped)} (past a ${CHANNEL_EXPIRED_MS / 1000} s channel expiry), SIGCONT`,
    description: `a member (drawn) SIGSTOPped for ${s(WAITS.stopped)} (channel expiry ${CHANNEL_EXPIRED_MS / 1000} s, scanned every 10 s; heartbeats every ${HEARTBEAT_MS / 1000} s), then SIGCONT`,
    movesQueues: true,
    timeline: (random) =>
      new TimelineBuilder(random, MEMBERS)
        .wait(...WAITS.beforeFault)
        .stopFor(...WAITS.stopped)
        .wait(...WAITS.afterRecovery).steps,
  }),
  scenario({
    id: 'iii',
    name: 'broker-restart',
    title: 'broker SIGKILL and restart; a join and a member SIGKILL during the outage',
    description: `a broker (drawn) SIGKILLed; during the outage a member joins and another (drawn) is SIGKILLed, in drawn order, ${s(WAITS.outageGap)} apart; the broker restarted`,
    movesQueues: true,
    timeline(random) {
      const broker = pick(random, BROKERS);
      const t = new TimelineBuilder(random, MEMBERS).wait(...WAITS.beforeFault).step({ kind: 'broker-kill', broker });
      for (const event of shuffle(random, ['join', 'kill'] as const)) t.wait(...WAITS.outageGap)[event]();
      return t
        .wait(...WAITS.outageGap)
        .step({ kind: 'broker-start', broker })
        .wait(...WAITS.afterRecovery).steps;
    },
  }),
  scenario({
    id: 'iv',
    name: 'master-failover',
    title: 'controller mode: master SIGKILL, replica promoted',
    description: `controller mode: the master of broker-a SIGKILLed, its replica promoted; the old master rejoins ${s(WAITS.promotedToRestart)} after the promotion`,
    cluster: 'controller',
    movesQueues: true,
    timeline: (random) =>
      new TimelineBuilder(random, MEMBERS)
        .wait(...WAITS.beforeFault)
        .step({ kind: 'master-kill', broker: 'broker-a' })
        .wait(...WAITS.promotedToRestart)
        .step({ kind: 'master-start', broker: 'broker-a' })
        .wait(...WAITS.afterMasterRestart).steps,
  }),
  scenario({
    id: 'v',
    name: 'namesrv-down',
    title: `name server down ${s(WAITS.namesrvDown)}`,
    description: `the name server down for ${s(WAITS.namesrvDown)}, then restarted`,
    movesQueues: false,
    timeline: (random) =>
      new TimelineBuilder(random, MEMBERS)
        .wait(...WAITS.beforeFault)
        .step({ kind: 'namesrv-kill' })
        .wait(...WAITS.namesrvDown)
        .step({ kind: 'namesrv-start' })
        .wait(...WAITS.afterRecovery).steps,
  }),
  scenario({
    id: 'vi',
    name: 'redis-down',
    title: `Redis down ${s(WAITS.redisDown)} (mqkit: Redis store; Java: broker store)`,
    description: `Redis down for ${s(WAITS.redisDown)} (mqkit's Redis offset store; Java, which has none, uses the broker's)`,
    store: 'redis',
    movesQueues: false,
    timeline: (random) =>
      new TimelineBuilder(random, MEMBERS)
        .wait(...WAITS.beforeFault)
        .step({ kind: 'redis-halt' })
        .wait(...WAITS.redisDown)
        .step({ kind: 'redis-restart' })
        .wait(...WAITS.afterRedis).steps,
  }),
  scenario({
    id: 'storm',
    name: 'storm',
    title: `at ${STORM_RATE.toLocaleString('en-US')} msg/s: two members SIGKILLed and two joined while a broker is SIGKILLed and restarted`,
    description: `at ${STORM_RATE} msg/s, a broker (drawn) SIGKILLed; during the outage two members (drawn) SIGKILLed and two join, in drawn order, ${s(WAITS.outageGap)} apart; the broker restarted`,
    rate: STORM_RATE,
    movesQueues: true,
    timeline(random) {
      const broker = pick(random, BROKERS);
      const t = new TimelineBuilder(random, MEMBERS).wait(...WAITS.beforeFault).step({ kind: 'broker-kill', broker });
      for (const event of shuffle(random, ['join', 'join', 'kill', 'kill'] as const))
        t.wait(...WAITS.outageGap)[event]();
      return t
        .wait(...WAITS.outageGap)
        .step({ kind: 'broker-start', broker })
        .wait(...WAITS.afterRecovery).steps;
    },
  }),
];

/** A scenario's runs: CONCURRENTLY, and ORDERLY too when its faults move queues. */
export function modesOf(scenario: Scenario): ConsumeMode[] {
  return scenario.movesQueues ? ['CONCURRENTLY', 'ORDERLY'] : ['CONCURRENTLY'];
}
