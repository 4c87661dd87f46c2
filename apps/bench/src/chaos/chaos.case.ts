import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRedisServer, type RedisServerHandle } from '@mqkit/offset-store-redis/testing';
import { uniqueName } from '@mqkit/transport-rocketmq/testing';
import type { BenchCase } from '../cases/bench-case';
import { BenchCluster } from '../cases/bench-cluster';
import { javaRunner } from '../cases/bench-process';
import { log } from '../cases/bench-util';
import { workspaceRoot } from '../compare/variant-tree';
import { ChaosGroup, type ChaosClient, type JavaRunner } from './chaos-group';
import { DeliveryLog } from './delivery-log';
import { CHANNEL_EXPIRED_MS, HEARTBEAT_MS, SCENARIOS, type Scenario } from './scenarios';
import { SteadyProducer } from './steady-producer';

const RATE = 300;
const DRAIN_MS = 90_000;

export interface ChaosRun {
  readonly scenario: string;
  readonly client: ChaosClient;
  readonly acknowledged: number;
  readonly failedSends: number;
  readonly lost: number;
  readonly duplicates: number;
  /** From the fault to the first delivery of a message sent after it; -1 when none was delivered. */
  readonly resumeMs: number;
  readonly deliveredBy: readonly number[];
}

/** One scenario with one client's members: a fresh topic and group, steady load, the faults, then a drain. */
async function runScenario(
  scenario: Scenario,
  client: ChaosClient,
  env: {
    cluster: BenchCluster;
    redis: RedisServerHandle | undefined;
    java: JavaRunner | undefined;
    exclusiveHandoff: boolean;
    trace: boolean;
  },
): Promise<ChaosRun> {
  const topic = await env.cluster.createTopic(`chaos${scenario.id}`, 4);
  const deliveries = new DeliveryLog({ trace: env.trace });
  const marks: { label: string; at: number }[] = [];
  const store = client === 'mqkit' ? scenario.store : 'broker';
  const group = new ChaosGroup(
    client,
    {
      namesrvAddr: env.cluster.namesrvAddr,
      topic,
      group: uniqueName(`chaos${scenario.id}${client}`),
      heartbeatMs: scenario.heartbeatMs,
      store,
      redisUrl: env.redis?.url,
      exclusiveHandoff: env.exclusiveHandoff,
      trace: env.trace,
    },
    deliveries,
    env.java,
  );
  const producer = await SteadyProducer.open(env.cluster.namesrvAddr);
  let fault: { label: string; at: number; seq: number } | undefined;
  try {
    for (let i = 0; i < scenario.members; i++) await group.add();
    producer.start(topic, RATE);
    // Settled: every member consumes.
    const settleBy = Date.now() + 30_000;
    while (group.deliveredBy().some((n) => n === 0) && Date.now() < settleBy)
      await new Promise((r) => setTimeout(r, 100));
    await scenario.run({
      cluster: env.cluster.cluster,
      group,
      redis: env.redis,
      fault: (label) => (fault = { label, at: Date.now(), seq: producer.next }),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      log: (line) => {
        marks.push({ label: line.trim(), at: Date.now() });
        log(line);
      },
    });
  } finally {
    await producer.stop();
  }
  const drainBy = Date.now() + DRAIN_MS;
  while (deliveries.lost(producer.acknowledged) > 0 && Date.now() < drainBy)
    await new Promise((r) => setTimeout(r, 200));
  await group.close();
  if (env.trace) {
    const dir = join(workspaceRoot(), 'reports', 'bench');
    mkdirSync(dir, { recursive: true });
    const origin = fault?.at ?? 0;
    const duplicated = deliveries
      .duplicated()
      .map((d) => ({ seq: d.seq, deliveries: d.deliveries.map(([m, at, q]) => [m, at - origin, q]) }));
    const notes = group.notes.map(([m, at, text]) => [m, at - origin, text]);
    writeFileSync(
      join(dir, `chaos-trace-${scenario.id}-${client}.json`),
      `${JSON.stringify({ fault, marks: marks.map((m) => ({ ...m, at: m.at - origin })), notes, duplicated }, null, 1)}\n`,
    );
  }
  const first = fault ? deliveries.firstDeliveryFrom(fault.seq) : undefined;
  return {
    scenario: scenario.name,
    client,
    acknowledged: producer.acknowledged.size,
    failedSends: producer.failed,
    lost: deliveries.lost(producer.acknowledged),
    duplicates: deliveries.duplicates(producer.acknowledged),
    resumeMs: fault && first !== undefined ? Math.max(0, first - fault.at) : -1,
    deliveredBy: group.deliveredBy(),
  };
}

/**
 * `npm run bench -- chaos [scenario] [--client mqkit|java] [--exclusive-handoff]`: each scenario (i..vi, by id or
 * name) once with mqkit members and once with RocketMQ's Java DefaultMQPushConsumer members, every member a
 * child process, on clusters the bench starts (two masters; a controller-mode pair for iv) and a redis-server of
 * its own. One JSON line per scenario with both clients' figures, then the totals over the scenarios both ran.
 * Results go to reports/bench/chaos[-<scenario>][-<client>][-exclusive-handoff].json.
 */
export const chaosCase: BenchCase = {
  name: 'chaos',
  embedded: false,
  description:
    'faults under load (member kill/join, member stop past channel expiry, broker restart, controller failover, name server down, Redis down): mqkit vs Java members',
  async run(args) {
    const wanted = args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--client');
    const scenarios = wanted ? SCENARIOS.filter((s) => s.id === wanted || s.name === wanted) : SCENARIOS;
    if (scenarios.length === 0)
      throw new Error(
        `unknown chaos scenario ${wanted}; known: ${SCENARIOS.map((s) => `${s.id} (${s.name})`).join(', ')}`,
      );
    const clientFlag = args.includes('--client') ? args[args.indexOf('--client') + 1] : undefined;
    const clients: ChaosClient[] = clientFlag === 'mqkit' || clientFlag === 'java' ? [clientFlag] : ['mqkit', 'java'];
    const exclusiveHandoff = args.includes('--exclusive-handoff');
    const trace = args.includes('--trace');
    log(
      `settings: ${RATE} msg/s, 4 queues per broker, both clients with RocketMQ's default intervals except heartbeats every ${HEARTBEAT_MS} ms (below the lowered channel expiry), CONSUME_FROM_FIRST_OFFSET, concurrently, default threads; mqkit exclusiveHandoff ${exclusiveHandoff}; broker channelExpiredTimeout ${CHANNEL_EXPIRED_MS} ms`,
    );
    const java = clients.includes('java') ? await javaRunner(log) : undefined;
    const redis = scenarios.some((s) => s.store === 'redis')
      ? await startRedisServer({ useRedisUrl: false })
      : undefined;
    const runs: ChaosRun[] = [];
    const lines: Record<string, unknown>[] = [];
    try {
      for (const kind of ['masters', 'controller'] as const) {
        const own = scenarios.filter((s) => s.cluster === kind);
        if (own.length === 0) continue;
        const cluster = await BenchCluster.start(
          // RocketMQ's 60 s queue-lock lifetime (the harness's 10 s is for the fast test profile): members run the
          // default profile, which renews locks every 20 s.
          kind === 'controller'
            ? {
                brokers: ['broker-a'],
                controller: true,
                lockMaxLiveTimeMs: 60_000,
                brokerConfig: { channelExpiredTimeout: String(CHANNEL_EXPIRED_MS) },
              }
            : {
                lockMaxLiveTimeMs: 60_000,
                brokerConfig: { channelExpiredTimeout: String(CHANNEL_EXPIRED_MS), registerNameServerPeriod: '10000' },
              },
          log,
        );
        try {
          for (const scenario of own) {
            log(`# chaos ${scenario.id} (${scenario.name}): ${scenario.description}`);
            const results: Record<string, ChaosRun> = {};
            for (const client of clients) {
              const run = await runScenario(scenario, client, { cluster, redis, java, exclusiveHandoff, trace });
              log(`  ${client}: ${JSON.stringify(run)}`);
              results[client] = run;
              runs.push(run);
            }
            const line = { case: 'chaos', scenario: scenario.name, id: scenario.id, ...results };
            lines.push(line);
            process.stdout.write(`${JSON.stringify(line)}\n`);
          }
        } finally {
          await cluster.stop();
        }
      }
    } finally {
      await redis?.stop();
      java?.close();
    }
    const both = scenarios.filter(
      (s) =>
        runs.some((r) => r.scenario === s.name && r.client === 'mqkit') &&
        runs.some((r) => r.scenario === s.name && r.client === 'java'),
    );
    const sum = (client: ChaosClient, field: 'lost' | 'duplicates' | 'acknowledged') =>
      runs
        .filter((r) => r.client === client && both.some((s) => s.name === r.scenario))
        .reduce((n, r) => n + r[field], 0);
    const summary = {
      scenarios: both.length,
      acknowledged: sum('mqkit', 'acknowledged') + sum('java', 'acknowledged'),
      mqkitLost: sum('mqkit', 'lost'),
      javaLost: sum('java', 'lost'),
      mqkitDuplicates: sum('mqkit', 'duplicates'),
      javaDuplicates: sum('java', 'duplicates'),
    };
    const dir = join(workspaceRoot(), 'reports', 'bench');
    mkdirSync(dir, { recursive: true });
    // One file per variant, so a partial or one-sided run never overwrites the side-by-side figures that
    // docs/reliability.md quotes.
    const variant = [
      wanted,
      clientFlag && clients.length === 1 ? clients[0] : undefined,
      exclusiveHandoff ? 'exclusive-handoff' : undefined,
    ].filter(Boolean);
    writeFileSync(
      join(dir, `chaos${variant.map((v) => `-${v}`).join('')}.json`),
      `${JSON.stringify({ at: new Date().toISOString(), exclusiveHandoff, rate: RATE, scenarios: lines, summary }, null, 2)}\n`,
    );
    return summary;
  },
};
