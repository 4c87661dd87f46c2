import type { AllocationStrategy } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { membershipWalk } from './membership-walk';
import { SeededRandom } from './seeded-random';
import { simulate, simulatedQueues } from './simulate';
import { DEFAULT_SIMULATION, type SimulationReport } from './simulation-types';

const withoutTimings = (report: SimulationReport) => report.scenarios.map(({ allocateMicros, ...rest }) => rest);

describe('simulate', () => {
  const small = { ...DEFAULT_SIMULATION, queueCounts: [8, 16], maxMembers: 6, steps: 120 };

  it('gives identical results (timings aside) for the same seed, and different ones for another seed', () => {
    const a = simulate(small).report;
    const b = simulate(small).report;
    expect(withoutTimings(a)).toEqual(withoutTimings(b));
    expect(withoutTimings(simulate({ ...small, seed: 2 }).report)).not.toEqual(withoutTimings(a));
  });

  it('reports one row per strategy, queue count and group size, in the documented shape', () => {
    const { report } = simulate(small);
    expect(report.seed).toBe(1);
    expect(report.scenarios).toHaveLength(4 * 2 * 5);
    const row = report.scenarios.find((s) => s.strategy === 'AVG' && s.queues === 8 && s.members === 2)!;
    expect(Object.keys(row).sort()).toEqual([
      'allocateMicros',
      'balance',
      'brokers',
      'members',
      'moved',
      'queues',
      'strategy',
    ]);
    expect(Object.keys(row.balance).sort()).toEqual(['maxMinusMin', 'stddev']);
    expect(Object.keys(row.moved).sort()).toEqual(['lowerBoundMean', 'mean', 'worst']);
    // 8 queues over 2 members: AVG gives 4 and 4; from 2 members the walk can only join, and a joiner of a
    // group of 3 gets 3 or 2 queues (3 3 2), depending on where its id sorts.
    expect(row.balance).toEqual({ maxMinusMin: 0, stddev: 0 });
    expect(row.moved.lowerBoundMean).toBeGreaterThanOrEqual(2);
    expect(row.moved.lowerBoundMean).toBeLessThanOrEqual(3);
    expect(row.moved.worst).toBeGreaterThanOrEqual(2);
  });

  it('measures moved against the joiner or leaver share: CONSISTENT_HASH moves exactly that, AVG more', () => {
    const { summaries } = simulate(small);
    const of = (strategy: string, queues: number) =>
      summaries.find((s) => s.strategy === strategy && s.queues === queues)!;
    expect(of('CONSISTENT_HASH', 16).movedRatio).toBe(1);
    expect(of('CONSISTENT_HASH', 16).worstExcess).toBe(0);
    expect(of('AVG', 16).movedRatio).toBeGreaterThan(1.5);
    expect(of('BALANCED_RENDEZVOUS', 16).maxMinusMin).toBe(1);
    expect(of('BALANCED_RENDEZVOUS', 16).movedRatio).toBeLessThan(of('AVG', 16).movedRatio);
    expect(of('BALANCED_RENDEZVOUS', 16).movedRatio).toBeLessThan(of('AVG_BY_CIRCLE', 16).movedRatio);
  });

  it('refuses a strategy that gives a queue to two members', () => {
    const greedy: AllocationStrategy = { name: 'GREEDY', allocate: ({ mqAll }) => [...mqAll] };
    expect(() => simulate({ ...small, queueCounts: [8], steps: 2 }, [greedy])).toThrow(
      /GREEDY gives SimTopic\/broker-a\/0 to both/,
    );
  });
});

describe('membershipWalk and simulatedQueues', () => {
  it('walks between the bounds, joining at the bottom and leaving at the top, with unique sorted ids', () => {
    const walk = membershipWalk(new SeededRandom(3), { minMembers: 2, maxMembers: 4, steps: 300 });
    expect(walk).toHaveLength(300);
    for (const change of walk) {
      expect(change.before.length).toBeGreaterThanOrEqual(2);
      expect(change.before.length).toBeLessThanOrEqual(4);
      if (change.before.length === 2) expect(change.kind).toBe('join');
      if (change.before.length === 4) expect(change.kind).toBe('leave');
      expect(change.after.length).toBe(change.before.length + (change.kind === 'join' ? 1 : -1));
      expect(new Set(change.after).size).toBe(change.after.length);
      expect([...change.after].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(change.after);
    }
  });

  it('spreads queues over brokers, the first brokers taking the remainder', () => {
    const queues = simulatedQueues(5, 2);
    expect(queues.map((q) => `${q.brokerName}#${q.queueId}`)).toEqual([
      'broker-a#0',
      'broker-a#1',
      'broker-a#2',
      'broker-b#0',
      'broker-b#1',
    ]);
  });
});
