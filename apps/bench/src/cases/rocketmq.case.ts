import { uniqueName } from '@mqkit/transport-rocketmq/testing';
import type { BenchCase } from './bench-case';
import { BenchCluster } from './bench-cluster';
import { javaRunner, runNodeChild } from './bench-process';
import { flag, log, median } from './bench-util';
import { measureConvergence } from './group-convergence';

/** What both consumer programs report (PushConsumerBench and mqkit-consume.child.cjs print the same fields). */
interface ConsumeRun {
  readonly msgsPerSec: number;
  readonly steadyMsgsPerSec: number;
  readonly firstMessageMs: number;
  readonly elapsedMs: number;
  readonly received: number;
  readonly peakRssKib: number;
}

const mb = (kib: number): number => Math.round((kib / 1024) * 10) / 10;

/**
 * `npm run bench -- rocketmq`: its own one-broker cluster through the harness, a backlog of 1 KiB messages, then
 * interleaved runs of mqkit (no-op handler) and RocketMQ's DefaultMQPushConsumer, each in its own process with a
 * fresh group from CONSUME_FROM_FIRST_OFFSET and the same settings; medians. Then convergenceMs: SIGKILL of one
 * of 3 mqkit member processes to an assignment covering every queue again.
 */
export const rocketmqCase: BenchCase = {
  name: 'rocketmq',
  embedded: false,
  description: "consume throughput and peak RSS of mqkit vs RocketMQ's Java push consumer on a real cluster, and group convergence after a member is killed",
  async run(args) {
    const count = flag(args, 'messages', 200_000);
    const size = flag(args, 'size', 1024);
    const rounds = flag(args, 'rounds', 3);
    const threads = flag(args, 'threads', 20);
    const queues = flag(args, 'queues', 8);
    const trials = flag(args, 'convergence-rounds', 3);
    const timeoutSec = flag(args, 'timeout', 300);
    log(
      `settings: backlog ${count} x ${size} B on one broker (broker-a, heap 512 MiB), ${queues} queues; each client in its own process, ` +
        `fresh group, CONSUME_FROM_FIRST_OFFSET, pullBatchSize 32, consumeMessageBatchMaxSize 1, consumeThreadMin/Max ${threads} ` +
        `(mqkit: ${threads} concurrent handler calls), handler that only counts; Java -Xmx512m; mqkit default profile; ` +
        `untimed warm-up read of 50,000 messages first; ${rounds} interleaved rounds (order alternates), medians; msgs/s from start() to the last message; peak RSS = VmHWM; ` +
        `convergence: 3 mqkit member processes, SIGKILL one, ${trials} trials, median`,
    );
    const java = await javaRunner(log);
    const bench = await BenchCluster.start({ brokers: ['broker-a'], brokerHeapMb: 512 }, log);
    try {
      const topic = await bench.createTopic('BenchConsume', queues);
      const fillMs = await bench.fill(topic, count, size);
      const expected = await bench.stored(topic);
      log(`backlog: ${expected} messages stored in ${topic} (${fillMs} ms to fill)`);
      const warm = Math.min(50_000, expected);
      log(`warm-up (untimed): a throwaway group in this process read ${warm} messages in ${await bench.warmReads(topic, warm)} ms`);
      const mqkit: ConsumeRun[] = [];
      const javaRuns: ConsumeRun[] = [];
      for (let r = 0; r < rounds; r++) {
        for (const side of r % 2 === 0 ? (['mqkit', 'java'] as const) : (['java', 'mqkit'] as const)) {
          const group = uniqueName(`bench_${side}`);
          const child =
            side === 'mqkit'
              ? runNodeChild('mqkit-consume.child.cjs', { namesrvAddr: bench.namesrvAddr, topic, group, expected, threads, timeoutMs: timeoutSec * 1000 }, { timeoutMs: (timeoutSec + 60) * 1000 })
              : java.run('PushConsumerBench', [bench.namesrvAddr, topic, group, String(expected), String(threads), String(timeoutSec)], (timeoutSec + 60) * 1000);
          const run = (await child.result) as unknown as ConsumeRun & { ok: boolean };
          if (!run.ok) throw new Error(`${side} read ${run.received} of ${expected} messages within ${timeoutSec} s`);
          (side === 'mqkit' ? mqkit : javaRuns).push(run);
          log(
            `round ${r + 1} ${side}: ${run.msgsPerSec} msg/s (${run.received} in ${run.elapsedMs} ms; first message after ${run.firstMessageMs} ms, ` +
              `${run.steadyMsgsPerSec} msg/s after it), peak RSS ${mb(run.peakRssKib)} MB`,
          );
        }
      }
      const convergence: number[] = [];
      const convergeTopic = await bench.createTopic('BenchConverge', queues);
      for (let t = 0; t < trials; t++) {
        const ms = await measureConvergence({ namesrvAddr: bench.namesrvAddr, topic: convergeTopic, queues, log });
        convergence.push(ms);
        log(`convergence trial ${t + 1}: ${ms} ms`);
      }
      const mqkitMsgsPerSec = Math.round(median(mqkit.map((r) => r.msgsPerSec)));
      const javaMsgsPerSec = Math.round(median(javaRuns.map((r) => r.msgsPerSec)));
      log(
        `steady (after the first message): mqkit ${Math.round(median(mqkit.map((r) => r.steadyMsgsPerSec)))} msg/s, ` +
          `java ${Math.round(median(javaRuns.map((r) => r.steadyMsgsPerSec)))} msg/s`,
      );
      return {
        mqkitMsgsPerSec,
        javaMsgsPerSec,
        ratio: Math.round((mqkitMsgsPerSec / javaMsgsPerSec) * 100) / 100,
        mqkitPeakRssMb: mb(median(mqkit.map((r) => r.peakRssKib))),
        javaPeakRssMb: mb(median(javaRuns.map((r) => r.peakRssKib))),
        convergenceMs: Math.round(median(convergence)),
      };
    } finally {
      await bench.stop();
      java.close();
    }
  },
};
