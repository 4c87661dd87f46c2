import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRedisServer, type RedisServerHandle } from '@mqkit/offset-store-redis/testing';
import { uniqueName } from '@mqkit/core/testing';
import { RESULT_DETAIL, type BenchCase } from '../cases/bench-case';
import { BenchCluster } from '../cases/bench-cluster';
import { javaRunner } from '../cases/bench-process';
import { log } from '../cases/bench-util';
import { workspaceRoot } from '../compare/variant-tree';
import { refreshReliabilityTable } from '../report/reliability-table';
import { parseChaosArgs, partialRunName } from './chaos-args';
import { ChaosGroup, type ChaosClient, type JavaRunner } from './chaos-group';
import { aggregate, summarize, WORSE_MARGIN_PCT, type ChaosRun } from './chaos-results';
import { DeliveryLog } from './delivery-log';
import {
  CHANNEL_EXPIRED_MS,
  HEARTBEAT_MS,
  RATE,
  STORM_RATE,
  WAITS,
  type ConsumeMode,
  type Scenario,
} from './scenarios';
import { SteadyProducer } from './steady-producer';
import { describeTimeline, timelineRandom } from './timeline';

/**
 * How long a run waits after its timeline for every acknowledged message to be delivered. ORDERLY waits longer: a
 * SIGKILLed member's queues stay locked on the broker until the lock expires (60 s here) and the next rebalance
 * (20 s) locks them for another member.
 */
const DRAIN_MS: Record<ConsumeMode, number> = { CONCURRENTLY: 90_000, ORDERLY: 150_000 };

/** One scenario in one mode with one seed and one client's members: a fresh topic and group, load, the faults, a drain. */
async function runScenario(
  scenario: Scenario,
  mode: ConsumeMode,
  seed: number,
  client: ChaosClient,
  env: {
    cluster: BenchCluster;
    redis: RedisServerHandle | undefined;
    java: JavaRunner | undefined;
    exclusiveHandoff: boolean;
    trace: boolean;
  },
): Promise<ChaosRun> {
  const started = Date.now();
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
      consumeMode: mode,
      trace: env.trace,
    },
    deliveries,
    env.java,
  );
  const producer = await SteadyProducer.open(env.cluster.namesrvAddr);
  let fault: { label: string; at: number; seq: number } | undefined;
  try {
    for (let i = 0; i < scenario.members; i++) await group.add();
    producer.start(topic, scenario.rate);
    // Settled: every member consumes.
    const settleBy = Date.now() + 30_000;
    while (group.deliveredBy().some((n) => n === 0) && Date.now() < settleBy)
      await new Promise((r) => setTimeout(r, 100));
    await scenario.run({
      cluster: env.cluster.cluster,
      group,
      redis: env.redis,
      random: timelineRandom(seed),
      fault: (label) => {
        fault = { label, at: Date.now(), seq: producer.next };
      },
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      log: (line) => {
        marks.push({ label: line.trim(), at: Date.now() });
        log(line);
      },
    });
  } finally {
    await producer.stop();
  }
  const drainBy = Date.now() + DRAIN_MS[mode];
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
      join(dir, `chaos-trace-${scenario.id}-${mode.toLowerCase()}-${seed}-${client}.json`),
      `${JSON.stringify({ seed, fault, marks: marks.map((m) => ({ ...m, at: m.at - origin })), notes, duplicated }, null, 1)}\n`,
    );
  }
  const first = fault ? deliveries.firstDeliveryFrom(fault.seq) : undefined;
  return {
    id: scenario.id,
    scenario: scenario.name,
    mode,
    seed,
    client,
    acknowledged: producer.acknowledged.size,
    failedSends: producer.failed,
    lost: deliveries.lost(producer.acknowledged),
    duplicates: deliveries.duplicates(producer.acknowledged),
    orderViolations: deliveries.orderViolations(),
    resumeMs: fault && first !== undefined ? Math.max(0, first - fault.at) : -1,
    deliveredBy: group.deliveredBy(),
    durationSec: Math.round((Date.now() - started) / 1000),
    timeline: describeTimeline(scenario.timeline(timelineRandom(seed))),
  };
}

/**
 * `npm run bench -- chaos [scenario] [--client mqkit|java] [--mode concurrently|orderly] [--seed N] [--seeds K]
 * [--exclusive-handoff] [--trace]`: each scenario (i..vi and storm, by id or name), in CONCURRENTLY mode and, for
 * the scenarios that move queues, in ORDERLY mode, with K seeds (the first from --seed, else random, always
 * printed; the rest drawn from it), each seed once with mqkit members and once with RocketMQ's Java
 * DefaultMQPushConsumer members on the same seeded fault timeline; every member a child process, on clusters the
 * bench starts (two masters; a controller-mode pair for iv) and a redis-server of its own. One JSON line per
 * scenario, mode and seed with both clients' figures, then the totals. Results: reports/bench/chaos[-<variant>].json
 * (every run), and apps/bench/results/chaos.json for a full run (trials/chaos-<variant>.json for a partial one),
 * from which docs/reliability.md's table is written.
 */
export const chaosCase: BenchCase = {
  name: 'chaos',
  embedded: false,
  description:
    'faults under load on seeded timelines (member kill/join, member stop past channel expiry, broker restart, controller failover, name server down, Redis down, storm), CONCURRENTLY and ORDERLY: mqkit vs Java members',
  trialName: (args) => partialRunName(parseChaosArgs(args, () => 0)),
  refreshDocs: () => refreshReliabilityTable(),
  async run(args) {
    const parsed = parseChaosArgs(args);
    const { clients, variants, seeds, exclusiveHandoff, trace } = parsed;
    log(
      `settings: ${RATE} msg/s (storm ${STORM_RATE}), 4 queues per broker, 3 members, both clients with RocketMQ's default intervals except heartbeats every ${HEARTBEAT_MS} ms (below the lowered channel expiry), CONSUME_FROM_FIRST_OFFSET, default threads; CONCURRENTLY, and ORDERLY for the scenarios that move queues; mqkit exclusiveHandoff ${exclusiveHandoff}; broker channelExpiredTimeout ${CHANNEL_EXPIRED_MS} ms; timelines drawn per seed (mulberry32), waits in ms ${JSON.stringify(WAITS)}; mqkit worse when its duplicate share exceeds Java's by more than ${WORSE_MARGIN_PCT} points`,
    );
    log(
      `seeds: ${seeds.join(', ')} (first seed ${parsed.seed}${parsed.seedGiven ? '' : ', random'}; replay one with --seed N)`,
    );
    const java = clients.includes('java') ? await javaRunner(log) : undefined;
    const redis = variants.some((v) => v.scenario.store === 'redis')
      ? await startRedisServer({ useRedisUrl: false })
      : undefined;
    const runs: ChaosRun[] = [];
    const lines: Record<string, unknown>[] = [];
    try {
      for (const kind of ['masters', 'controller'] as const) {
        const own = variants.filter((v) => v.scenario.cluster === kind);
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
          for (const { scenario, mode } of own) {
            log(`# chaos ${scenario.id} (${scenario.name}) ${mode}: ${scenario.description}`);
            for (const seed of seeds) {
              log(`## seed ${seed}: ${describeTimeline(scenario.timeline(timelineRandom(seed)))}`);
              const results: Record<string, ChaosRun> = {};
              for (const client of clients) {
                const run = await runScenario(scenario, mode, seed, client, {
                  cluster,
                  redis,
                  java,
                  exclusiveHandoff,
                  trace,
                });
                log(`  ${client}: ${JSON.stringify(run)}`);
                results[client] = run;
                runs.push(run);
              }
              const line = { case: 'chaos', scenario: scenario.name, id: scenario.id, mode, seed, ...results };
              lines.push(line);
              process.stdout.write(`${JSON.stringify(line)}\n`);
            }
          }
        } finally {
          await cluster.stop();
        }
      }
    } finally {
      await redis?.stop();
      java?.close();
    }
    const figures = aggregate(runs);
    const summary = summarize(runs, seeds.length);
    const dir = join(workspaceRoot(), 'reports', 'bench');
    mkdirSync(dir, { recursive: true });
    // One file per variant, so a partial or one-sided run never overwrites the full run's.
    const variant = partialRunName(parsed);
    writeFileSync(
      join(dir, `chaos${variant ? `-${variant}` : ''}.json`),
      `${JSON.stringify({ at: new Date().toISOString(), exclusiveHandoff, rate: RATE, stormRate: STORM_RATE, seed: parsed.seed, seeds, variants: figures, summary, runs: lines }, null, 2)}\n`,
    );
    return {
      ...summary,
      [RESULT_DETAIL]: {
        seed: parsed.seed,
        seeds,
        rate: RATE,
        stormRate: STORM_RATE,
        worseMarginPct: WORSE_MARGIN_PCT,
        scenarios: parsed.scenarios.map((s) => ({ id: s.id, name: s.name, title: s.title, rate: s.rate })),
        variants: figures,
        runs,
      },
    };
  },
};
