import type { BenchCase } from './bench-case';
import { runDistEntry } from './bench-process';
import { flag, log } from './bench-util';
import { parseWith } from './observability-plugins';
import { PULL_BATCH, QUEUES, VARIANTS, type PipelineVariant } from './pipeline/pipeline-variants';
import { describeSpread, median, round, spreadOf } from '../report/run-stats';

interface VariantRun {
  readonly steadyMsgsPerSec: number;
  readonly totalMsgsPerSec: number;
  readonly firstMessageMs: number;
  readonly steadyWindowMs: number;
  readonly peakRssMb: number;
}

const BATCH_TARGET = 5_000_000;
const ONE_TARGET = 2_500_000;
const M = (n: number): string => `${(n / 1e6).toFixed(2)} M`;

/**
 * `npm run bench -- pipeline`: the engine's consume throughput on the embedded broker, with the transport's cost
 * taken out by a ceiling per mode. Every variant (engine batch-32, engine one-per-call, and the two ceilings) runs
 * in a process of its own, rounds rotate the order, and the figures quoted are steady rates (10 %-90 % of the
 * messages) with start-up reported apart.
 */
export const pipelineCase: BenchCase = {
  name: 'pipeline',
  embedded: true,
  description: 'consume throughput of the engine on the embedded broker, each variant in its own process, against a ceiling per mode',
  async run(args) {
    const messages = flag(args, 'messages', 4_000_000);
    const size = flag(args, 'size', 100);
    const rounds = flag(args, 'rounds', 5);
    const observe = parseWith(args);
    log(
      `settings: ${messages} messages x ${size} B stored before timing, ${QUEUES} queues, pullBatchSize ${PULL_BATCH}, consumeThreadMin/Max 20, ` +
        `no-op async handler; variants ${VARIANTS.join(', ')}, each in its own process (node --expose-gc), ${rounds} rounds with the order rotating, medians; ` +
        `steady = 10 %-90 % of the messages, total = start() to the last message${observe.length > 0 ? `; with ${observe.join(' and ')} on` : ''}`,
    );
    const runs = new Map<PipelineVariant, VariantRun[]>(VARIANTS.map((v) => [v, []]));
    for (let r = 0; r < rounds; r++) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + r) % VARIANTS.length]!);
      const line: string[] = [];
      for (const variant of order) {
        const run = (await runDistEntry('cases/pipeline/variant.main.js', { variant, messages, size, observe }, { timeoutMs: 300_000 }).result) as unknown as VariantRun & { exitCode: number };
        if (run.exitCode !== 0) throw new Error(`pipeline variant ${variant} exited with ${run.exitCode}`);
        runs.get(variant)!.push(run);
        line.push(`${variant} ${M(run.steadyMsgsPerSec)} steady (${M(run.totalMsgsPerSec)} total, first message ${run.firstMessageMs} ms, window ${run.steadyWindowMs} ms)`);
      }
      log(`round ${r + 1}: ${line.join('; ')}`);
    }
    const steady = (v: PipelineVariant) => spreadOf(runs.get(v)!.map((x) => x.steadyMsgsPerSec));
    const pick = (v: PipelineVariant, key: keyof VariantRun) => median(runs.get(v)!.map((x) => x[key]));
    for (const v of VARIANTS) log(describeSpread(`${v} steady`, steady(v), 'msg/s'));
    const batch = steady('batch').median;
    const one = steady('one').median;
    return {
      batchSteadyMsgsPerSec: Math.round(batch),
      oneSteadyMsgsPerSec: Math.round(one),
      batchCeilingSteadyMsgsPerSec: Math.round(steady('ceiling-batch').median),
      oneCeilingSteadyMsgsPerSec: Math.round(steady('ceiling-one').median),
      batchOfCeiling: round(batch / steady('ceiling-batch').median, 3),
      oneOfCeiling: round(one / steady('ceiling-one').median, 3),
      batchTotalMsgsPerSec: Math.round(pick('batch', 'totalMsgsPerSec')),
      oneTotalMsgsPerSec: Math.round(pick('one', 'totalMsgsPerSec')),
      batchFirstMessageMs: pick('batch', 'firstMessageMs'),
      oneFirstMessageMs: pick('one', 'firstMessageMs'),
      spreads: Object.fromEntries(VARIANTS.map((v) => [v, steady(v).spread])),
      allWithin10pct: VARIANTS.every((v) => steady(v).within10pct),
      peakRssMb: { batch: pick('batch', 'peakRssMb'), one: pick('one', 'peakRssMb') },
      targets: { batchAtLeast5M: batch >= BATCH_TARGET, oneAtLeast2_5M: one >= ONE_TARGET },
    };
  },
  readmeRow(file) {
    const r = file.result as Record<string, number> & { spreads: Record<string, number>; targets: Record<string, boolean> };
    return {
      measured: `${file.settings[0]?.replace(/^settings: /, '') ?? ''}`,
      result:
        `steady: batch of 32 **${M(r.batchSteadyMsgsPerSec)} msg/s** (${r.batchOfCeiling} of its ceiling, ${M(r.batchCeilingSteadyMsgsPerSec)}); ` +
        `one per call **${M(r.oneSteadyMsgsPerSec)} msg/s** (${r.oneOfCeiling} of its ceiling, ${M(r.oneCeilingSteadyMsgsPerSec)}); ` +
        `start() to the last message: ${M(r.batchTotalMsgsPerSec)} and ${M(r.oneTotalMsgsPerSec)}; first message after ${r.batchFirstMessageMs} / ${r.oneFirstMessageMs} ms; ` +
        `largest spread between runs ${(Math.max(...Object.values(r.spreads)) * 100).toFixed(1)} %`,
      target: `5 M msg/s steady with batches of 32: ${r.targets.batchAtLeast5M ? 'met' : 'missed'}; 2.5 M per message: ${r.targets.oneAtLeast2_5M ? 'met' : 'missed'}`,
    };
  },
};
