import type { BenchCase } from './bench-case';
import { BenchCluster } from './bench-cluster';
import { javaRunner, runNodeChild } from './bench-process';
import { flag, log, median } from './bench-util';

/** What both producer programs report (ProducerBench and mqkit-produce.child.cjs print the same fields). */
interface ProduceRun {
  readonly sent: number;
  readonly failed: number;
  readonly elapsedMs: number;
  readonly msgsPerSec: number;
  readonly peakRssKib: number;
  readonly firstError?: string;
}

type Mode = 'async' | 'sync';

/**
 * `npm run bench -- produce`: its own cluster (broker-a and broker-b) through the harness; sends of 1 KiB messages
 * by mqkit and by RocketMQ's DefaultMQProducer, each in its own process: async with at most 1,000 in flight, and
 * sync with one sender awaiting each send (one Java thread). Interleaved rounds, medians; each run gets a fresh
 * topic, and what the brokers stored is checked against what the run reported.
 */
export const produceCase: BenchCase = {
  name: 'produce',
  embedded: false,
  description: "send throughput of mqkit vs RocketMQ's Java DefaultMQProducer on a real cluster (async with 1,000 in flight, and sync)",
  async run(args) {
    const count = flag(args, 'messages', 50_000);
    const syncCount = flag(args, 'sync-messages', 5_000);
    const size = flag(args, 'size', 1024);
    const rounds = flag(args, 'rounds', 3);
    const inFlight = flag(args, 'in-flight', 1000);
    const queues = flag(args, 'queues', 4);
    log(
      `settings: ${size} B bodies; async ${count} messages with at most ${inFlight} in flight, sync ${syncCount} messages with one sender ` +
        `awaiting each send (Java: one thread); cluster broker-a + broker-b (heap 512 MiB), ${queues} queues each, a fresh topic per run; ` +
        `default producer settings on both sides (sendMsgTimeout 3 s, 2 retries, no latency fault tolerance, compression over 4 KiB); ` +
        `Java -Xmx512m; msgs/s = answered sends from the first send to the last answer; untimed warm-up of 20,000 sends first; ${rounds} interleaved rounds (order alternates), medians`,
    );
    const java = await javaRunner(log);
    const bench = await BenchCluster.start({ brokerHeapMb: 512 }, log);
    const runs: Record<`${'mqkit' | 'java'}-${Mode}`, ProduceRun[]> = { 'mqkit-async': [], 'java-async': [], 'mqkit-sync': [], 'java-sync': [] };
    try {
      const warm = await bench.warmSends(await bench.createTopic('BenchWarmUp', queues), 20_000, size);
      log(`warm-up (untimed): 20000 sends from this process in ${warm.ms} ms, ${warm.failed} failed`);
      for (let r = 0; r < rounds; r++) {
        for (const mode of ['async', 'sync'] as const) {
          for (const side of r % 2 === 0 ? (['mqkit', 'java'] as const) : (['java', 'mqkit'] as const)) {
            const topic = await bench.createTopic(`BenchProduce_${side}_${mode}`, queues);
            const n = mode === 'async' ? count : syncCount;
            const child =
              side === 'mqkit'
                ? runNodeChild('mqkit-produce.child.cjs', { namesrvAddr: bench.namesrvAddr, topic, count: n, size, mode, maxInFlight: inFlight }, { timeoutMs: 600_000 })
                : java.run('ProducerBench', [bench.namesrvAddr, topic, String(n), String(size), mode, String(inFlight)], 600_000);
            const run = (await child.result) as unknown as ProduceRun;
            runs[`${side}-${mode}`].push(run);
            const stored = await bench.stored(topic);
            log(
              `round ${r + 1} ${side} ${mode}: ${run.msgsPerSec} msg/s (${run.sent} sent in ${run.elapsedMs} ms, ${run.failed} failed` +
                `${run.firstError ? `: ${run.firstError}` : ''}; ${stored} stored), peak RSS ${Math.round(run.peakRssKib / 102.4) / 10} MB`,
            );
          }
        }
      }
    } finally {
      await bench.stop();
      java.close();
    }
    const rate = (key: keyof typeof runs): number => Math.round(median(runs[key].map((r) => r.msgsPerSec)));
    const mqkitMsgsPerSec = rate('mqkit-async');
    const javaMsgsPerSec = rate('java-async');
    return {
      mqkitMsgsPerSec,
      javaMsgsPerSec,
      ratio: Math.round((mqkitMsgsPerSec / javaMsgsPerSec) * 100) / 100,
      mqkitSyncMsgsPerSec: rate('mqkit-sync'),
      javaSyncMsgsPerSec: rate('java-sync'),
    };
  },
};
