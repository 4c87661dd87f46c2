import type { SimulationOptions, SimulationRun } from './simulation-types';

function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

const ratio = (moved: number, bound: number): string => (bound > 0 ? (moved / bound).toFixed(2) : '-');

/** The human-readable report: definitions, one row per strategy, queue count and group size, then a summary. */
export function formatTable(run: SimulationRun, options: SimulationOptions): string {
  const out: string[] = [];
  out.push(
    `Allocation simulator, seed ${options.seed}: queue counts ${options.queueCounts.join(', ')} over ${options.brokers} brokers, ` +
      `${options.steps} seeded joins and leaves per queue count between ${options.minMembers} and ${options.maxMembers} members.`,
    'members: group size of the row; balance is measured on states of that size, moved on changes starting from it.',
    'max-min: largest spread between the biggest and smallest share; stddev: std deviation of shares (mean over states).',
    'moved: queues whose owner changed in one join or leave (mean and worst); bound: the unavoidable part, the',
    "joiner's share after a join or the leaver's share before a leave (mean); x bound = moved mean / bound mean.",
    'us/alloc: mean microseconds per allocate() call (the only column that varies between runs of the same seed).',
    '',
  );
  out.push(
    table(
      ['strategy', 'queues', 'members', 'max-min', 'stddev', 'moved', 'worst', 'bound', 'x bound', 'us/alloc'],
      run.report.scenarios.map((s) => [
        s.strategy,
        s.queues,
        s.members,
        s.balance.maxMinusMin,
        s.balance.stddev.toFixed(2),
        s.moved.mean.toFixed(2),
        s.moved.worst,
        s.moved.lowerBoundMean.toFixed(2),
        ratio(s.moved.mean, s.moved.lowerBoundMean),
        s.allocateMicros.toFixed(1),
      ]),
    ),
  );
  out.push(
    '',
    'Summary per queue count (all sizes): x bound = total moved / total bound; worst size = highest per-size x bound;',
  );
  out.push('worst excess = most queues one change moved beyond its own bound.', '');
  out.push(
    table(
      ['strategy', 'queues', 'changes', 'x bound', 'worst size', 'worst excess', 'max-min', 'us/alloc'],
      run.summaries.map((s) => [
        s.strategy,
        s.queues,
        s.changes,
        s.movedRatio.toFixed(3),
        s.worstSizeRatio.toFixed(2),
        s.worstExcess,
        s.maxMinusMin,
        s.allocateMicros.toFixed(1),
      ]),
    ),
  );
  return `${out.join('\n')}\n`;
}
