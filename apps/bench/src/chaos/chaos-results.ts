import type { ChaosClient } from './chaos-group';
import type { ConsumeMode } from './scenarios';

/** One scenario run: one scenario, one consume mode, one seed, one client. */
export interface ChaosRun {
  readonly id: string;
  readonly scenario: string;
  readonly mode: ConsumeMode;
  readonly seed: number;
  readonly client: ChaosClient;
  readonly acknowledged: number;
  readonly failedSends: number;
  readonly lost: number;
  readonly duplicates: number;
  /** See countOrderViolations (delivery-log.ts); counted in every mode, a promise only in ORDERLY. */
  readonly orderViolations: number;
  /** From the fault to the first delivery of a message sent after it; -1 when none was delivered. */
  readonly resumeMs: number;
  readonly deliveredBy: readonly number[];
  /** The run's wall time, topic and members' start to their stop, in s. */
  readonly durationSec: number;
  /** The drawn timeline, as logged. */
  readonly timeline: string;
}

export interface Figure {
  readonly median: number;
  /** The highest over the seeds: for lost, duplicates and order violations, the worst run. */
  readonly worst: number;
}

/** One client's figures in one scenario and mode over the seeds it ran. */
export interface ClientFigures {
  readonly runs: number;
  readonly acknowledged: Figure;
  readonly lost: Figure;
  readonly duplicates: Figure;
  /** Duplicates as a share of the run's acknowledged messages, in %. */
  readonly duplicatesPct: Figure;
  /** ORDERLY only: a promise of that mode, none of CONCURRENTLY. */
  readonly orderViolations?: Figure;
  /** From the fault to the first delivery of a message sent after it, over the runs that had one (ms). */
  readonly resumeMs?: Figure;
  readonly durationSec: Figure;
}

/** One scenario in one mode over the seeds. */
export interface VariantFigures {
  readonly id: string;
  readonly scenario: string;
  readonly mode: ConsumeMode;
  /** The seeds both clients ran. */
  readonly seeds: readonly number[];
  readonly mqkit?: ClientFigures;
  readonly java?: ClientFigures;
  /** Of `seeds`: how many had mqkit's duplicates above Java's by more than WORSE_MARGIN (see worseSeed). */
  readonly mqkitWorseSeeds: number;
}

/** The chaos case's last line (main puts "case" first). */
export interface ChaosSummary {
  /** Scenario × mode variants both clients ran (7 CONCURRENTLY and 5 ORDERLY in a full run). */
  readonly scenarios: number;
  readonly seeds: number;
  /** Over every run of those variants, both clients. */
  readonly acknowledged: number;
  readonly mqkitLost: number;
  readonly javaLost: number;
  readonly mqkitDuplicates: number;
  readonly javaDuplicates: number;
  readonly mqkitWorseSeeds: number;
  /** ORDERLY runs only. */
  readonly mqkitOrderViolations: number;
  readonly javaOrderViolations: number;
}

/** The median; of an even count, the mean of the middle two. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function figure(values: readonly number[]): Figure {
  return { median: median(values), worst: values.length === 0 ? 0 : Math.max(...values) };
}

/** mqkit is "worse" in a seed when its duplicate share exceeds Java's by more than this many percentage points. */
export const WORSE_MARGIN_PCT = 2;

const share = (run: ChaosRun): number => (run.acknowledged > 0 ? (100 * run.duplicates) / run.acknowledged : 0);

/**
 * Whether mqkit had more duplicates than Java in one seed by more than 2 % of the acknowledged messages: each
 * client's run has its own producer and so its own acknowledged count, so the two are compared as shares of their
 * own run's acknowledged messages (mqkit's share minus Java's, in percentage points, above WORSE_MARGIN_PCT).
 */
export function worseSeed(mqkit: ChaosRun, java: ChaosRun): boolean {
  return share(mqkit) - share(java) > WORSE_MARGIN_PCT;
}

const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

function clientFigures(runs: readonly ChaosRun[], mode: ConsumeMode): ClientFigures | undefined {
  if (runs.length === 0) return undefined;
  const of = (f: (r: ChaosRun) => number) => figure(runs.map(f));
  const pct = of(share);
  const resumed = runs.flatMap((r) => (r.resumeMs >= 0 ? [r.resumeMs] : []));
  return {
    runs: runs.length,
    acknowledged: of((r) => r.acknowledged),
    lost: of((r) => r.lost),
    duplicates: of((r) => r.duplicates),
    duplicatesPct: { median: round(pct.median), worst: round(pct.worst) },
    ...(mode === 'ORDERLY' ? { orderViolations: of((r) => r.orderViolations) } : {}),
    ...(resumed.length > 0 ? { resumeMs: figure(resumed) } : {}),
    durationSec: of((r) => r.durationSec),
  };
}

/** Per scenario and mode, in the order the runs came: median and worst over the seeds, and mqkit's worse seeds. */
export function aggregate(runs: readonly ChaosRun[]): VariantFigures[] {
  const keys: string[] = [];
  const byKey = new Map<string, ChaosRun[]>();
  for (const run of runs) {
    const key = `${run.id}/${run.mode}`;
    const list = byKey.get(key);
    if (list) list.push(run);
    else {
      keys.push(key);
      byKey.set(key, [run]);
    }
  }
  return keys.map((key) => {
    const list = byKey.get(key)!;
    const { id, scenario, mode } = list[0]!;
    const mqkit = list.filter((r) => r.client === 'mqkit');
    const java = list.filter((r) => r.client === 'java');
    const pairs = mqkit.flatMap((m) => {
      const j = java.find((r) => r.seed === m.seed);
      return j ? [[m, j] as const] : [];
    });
    const mqkitFigures = clientFigures(mqkit, mode);
    const javaFigures = clientFigures(java, mode);
    return {
      id,
      scenario,
      mode,
      seeds: pairs.map(([m]) => m.seed),
      ...(mqkitFigures ? { mqkit: mqkitFigures } : {}),
      ...(javaFigures ? { java: javaFigures } : {}),
      mqkitWorseSeeds: pairs.filter(([m, j]) => worseSeed(m, j)).length,
    };
  });
}

/**
 * The totals of the last line, over the scenario × mode variants both clients ran: sums over every run (lost,
 * duplicates, acknowledged), mqkit's worse seeds over every variant, order violations over the ORDERLY runs.
 */
export function summarize(runs: readonly ChaosRun[], seeds: number): ChaosSummary {
  const variants = aggregate(runs).filter((v) => v.seeds.length > 0);
  const counted = runs.filter((r) => variants.some((v) => v.id === r.id && v.mode === r.mode));
  const sum = (client: ChaosClient, field: 'lost' | 'duplicates' | 'acknowledged' | 'orderViolations') =>
    counted
      .filter((r) => r.client === client && (field !== 'orderViolations' || r.mode === 'ORDERLY'))
      .reduce((n, r) => n + r[field], 0);
  return {
    scenarios: variants.length,
    seeds,
    acknowledged: sum('mqkit', 'acknowledged') + sum('java', 'acknowledged'),
    mqkitLost: sum('mqkit', 'lost'),
    javaLost: sum('java', 'lost'),
    mqkitDuplicates: sum('mqkit', 'duplicates'),
    javaDuplicates: sum('java', 'duplicates'),
    mqkitWorseSeeds: variants.reduce((n, v) => n + v.mqkitWorseSeeds, 0),
    mqkitOrderViolations: sum('mqkit', 'orderViolations'),
    javaOrderViolations: sum('java', 'orderViolations'),
  };
}
