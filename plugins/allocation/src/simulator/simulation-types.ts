/** One row of the simulator's report: one strategy, one queue count, one group size. */
export interface ScenarioResult {
  readonly strategy: string;
  readonly queues: number;
  readonly brokers: number;
  /** The group size this row describes: states of this size (balance, timing) and changes starting from it (moved). */
  readonly members: number;
  readonly balance: {
    /** The largest difference between the biggest and smallest share seen in a state of this size. */
    readonly maxMinusMin: number;
    /** The population standard deviation of the shares, averaged over the states of this size. */
    readonly stddev: number;
  };
  readonly moved: {
    /** Queues whose owner changed, averaged over the joins and leaves starting from this size. */
    readonly mean: number;
    /** The most queues one such change moved. */
    readonly worst: number;
    /** The average unavoidable move: the joiner's share after a join, the leaver's share before a leave. */
    readonly lowerBoundMean: number;
  };
  /** Mean wall time of one allocate() call, in microseconds (the only figure that varies between runs). */
  readonly allocateMicros: number;
}

/** What `simulate --json` prints. */
export interface SimulationReport {
  readonly seed: number;
  readonly scenarios: ScenarioResult[];
}

/** One strategy over one queue count, all group sizes together. */
export interface StrategySummary {
  readonly strategy: string;
  readonly queues: number;
  readonly changes: number;
  /** Sum of queues moved over sum of lower bounds: 1.0 is the best any strategy can do. */
  readonly movedRatio: number;
  /** The highest per-size ratio (moved.mean / lowerBoundMean) among the sizes. */
  readonly worstSizeRatio: number;
  /** The most queues one change moved beyond its own lower bound. */
  readonly worstExcess: number;
  readonly maxMinusMin: number;
  readonly allocateMicros: number;
}

/** What `simulate()` returns: the printable report and one summary per strategy and queue count. */
export interface SimulationRun {
  readonly report: SimulationReport;
  readonly summaries: StrategySummary[];
}

/** What to simulate: queue counts, brokers, the range of group sizes and the seeded walk's length. */
export interface SimulationOptions {
  readonly seed: number;
  readonly queueCounts: readonly number[];
  readonly brokers: number;
  readonly minMembers: number;
  readonly maxMembers: number;
  /** Membership changes per queue count. */
  readonly steps: number;
}

/** The simulator's defaults: the sizes the issue names, about 100 changes per group size. */
export const DEFAULT_SIMULATION: SimulationOptions = {
  seed: 1,
  queueCounts: [8, 16, 64, 256],
  brokers: 2,
  minMembers: 2,
  maxMembers: 12,
  steps: 1100,
};
