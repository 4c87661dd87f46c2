import type { BenchCase } from './bench-case';
import { runDistEntry } from './bench-process';
import { flag, log } from './bench-util';
import { parseWith } from './observability-plugins';
import { PULL_BATCH, QUEUES, VARIANTS, type PipelineVariant, type VariantResult } from './pipeline/pipeline-variants';
import { describeSpread, median, round, spreadOf } from '../report/run-stats';

type VariantRun = VariantResult & { readonly peakRssMb: number };

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
  description:
    'consume throughput of the engine on the embedded broker, each variant in its own process, against a ceiling per mode',
  async run(args) {
    // 1 M messages keep the heap near 0.5 GB (4 M made it 1.7 GB and every pass slower); 4 s of pooled steady
    // window per process, and 8 rounds, two halves of 4 to tell whether a rerun repeats.
    const messages = flag(args, 'messages', 1_000_000);
    const size = flag(args, 'size', 100);
    const rounds = flag(args, 'rounds', 8);
    const warmups = flag(args, 'warmups', 1);
    const windowSec = flag(args, 'window', 4);
    const observe = parseWith(args);
    log(
      `settings: ${messages} messages x ${size} B stored before timing, ${QUEUES} queues, pullBatchSize ${PULL_BATCH}, consumeThreadMin/Max 20, ` +
        `no-op async handler; variants ${VARIANTS.join(', ')}, each in its own process (node --expose-gc); in each process ${warmups} untimed and ` +
        `then timed passes over the whole backlog until their steady windows add up to ${windowSec} s, each with a fresh group (engine) or fresh pull loops (ceiling) from the first offset; ` +
        `steady = 10 %-90 % of each pass's messages, pooled over the timed passes; total = start() to the last message, summed over them; ` +
        `${rounds} rounds with the order rotating, medians${observe.length > 0 ? `; with ${observe.join(' and ')} on` : ''}`,
    );
    const runs = new Map<PipelineVariant, VariantRun[]>(VARIANTS.map((v) => [v, []]));
    for (let r = 0; r < rounds; r++) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + r) % VARIANTS.length]!);
      const line: string[] = [];
      for (const variant of order) {
        const run = (await runDistEntry(
          'cases/pipeline/variant.main.js',
          { variant, messages, size, observe, warmups, windowSec },
          { timeoutMs: 300_000 },
        ).result) as unknown as VariantRun & { exitCode: number };
        if (run.exitCode !== 0) throw new Error(`pipeline variant ${variant} exited with ${run.exitCode}`);
        runs.get(variant)!.push(run);
        line.push(
          `${variant} ${M(run.steadyMsgsPerSec)} steady (${M(run.totalMsgsPerSec)} total, first message ${run.firstMessageMs} ms, ${run.passes} passes, steady windows ${run.steadyWindowMs} ms)`,
        );
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
      rerunDifferences: Object.fromEntries(VARIANTS.map((v) => [v, steady(v).rerunDifference])),
      allWithin10pct: VARIANTS.every((v) => steady(v).within10pct),
      peakRssMb: { batch: round(pick('batch', 'peakRssMb'), 1), one: round(pick('one', 'peakRssMb'), 1) },
      targets: { batchAtLeast5M: batch >= BATCH_TARGET, oneAtLeast2_5M: one >= ONE_TARGET },
    };
  },
  tableRow(file) {
    type Figure =
      | 'batchSteadyMsgsPerSec'
      | 'batchOfCeiling'
      | 'batchCeilingSteadyMsgsPerSec'
      | 'oneSteadyMsgsPerSec'
      | 'oneOfCeiling'
      | 'oneCeilingSteadyMsgsPerSec'
      | 'batchTotalMsgsPerSec'
      | 'oneTotalMsgsPerSec'
      | 'batchFirstMessageMs'
      | 'oneFirstMessageMs';
    const r = file.result as Record<Figure, number> & {
      spreads: Record<string, number>;
      rerunDifferences?: Record<string, number>;
      targets: Record<string, boolean>;
    };
    const rerun = r.rerunDifferences
      ? `; halves of the rounds at most ${(Math.max(...Object.values(r.rerunDifferences)) * 100).toFixed(1)} % apart`
      : '';
    return {
      measured: `${file.settings[0]?.replace(/^settings: /, '') ?? ''}`,
      result:
        `steady: batch of 32 **${M(r.batchSteadyMsgsPerSec)} msg/s** (${r.batchOfCeiling} of its ceiling, ${M(r.batchCeilingSteadyMsgsPerSec)}); ` +
        `one per call **${M(r.oneSteadyMsgsPerSec)} msg/s** (${r.oneOfCeiling} of its ceiling, ${M(r.oneCeilingSteadyMsgsPerSec)}); ` +
        `start() to the last message: ${M(r.batchTotalMsgsPerSec)} and ${M(r.oneTotalMsgsPerSec)}; first message after ${r.batchFirstMessageMs} / ${r.oneFirstMessageMs} ms; ` +
        `largest spread between single runs ${(Math.max(...Object.values(r.spreads)) * 100).toFixed(1)} %${rerun}`,
      target: `5 M msg/s steady with batches of 32: ${r.targets.batchAtLeast5M ? 'met' : 'missed'}; 2.5 M per message: ${r.targets.oneAtLeast2_5M ? 'met' : 'missed'}`,
    };
  },
};
