import { compareMessageQueues, mqKey, type AllocationStrategy, type MessageQueue } from '@mqkit/core';
import { AllocateMessageQueueAveragely } from '@mqkit/core';
import { AllocateMessageQueueAveragelyByCircle } from '../strategies/averagely-by-circle.strategy';
import { AllocateMessageQueueBalancedRendezvous } from '../strategies/balanced-rendezvous.strategy';
import { AllocateMessageQueueConsistentHash } from '../strategies/consistent-hash.strategy';
import { membershipWalk } from './membership-walk';
import { SeededRandom } from './seeded-random';
import type { ScenarioResult, SimulationOptions, SimulationRun, StrategySummary } from './simulation-types';

/** The strategies that need no configuration: the ones the simulator compares by default. */
export function defaultSimulatedStrategies(): AllocationStrategy[] {
  return [
    new AllocateMessageQueueAveragely(),
    new AllocateMessageQueueAveragelyByCircle(),
    new AllocateMessageQueueConsistentHash(),
    new AllocateMessageQueueBalancedRendezvous(),
  ];
}

/** `queues` queues of one topic spread over `brokers` brokers (broker-a, broker-b, ...), sorted as RocketMQ sorts them. */
export function simulatedQueues(queues: number, brokers: number): MessageQueue[] {
  const result: MessageQueue[] = [];
  for (let b = 0; b < brokers; b++) {
    const count = Math.floor(queues / brokers) + (b < queues % brokers ? 1 : 0);
    for (let queueId = 0; queueId < count; queueId++)
      result.push({ topic: 'SimTopic', brokerName: `broker-${String.fromCharCode(97 + b)}`, queueId });
  }
  return result.sort(compareMessageQueues);
}

interface SizeStats {
  states: number;
  maxMinusMin: number;
  stddevSum: number;
  calls: number;
  nanos: bigint;
  changes: number;
  movedSum: number;
  movedWorst: number;
  lowerBoundSum: number;
}

const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

/** Calls allocate for every member, as each member does, and returns the owner of every queue (by key). */
function ownership(
  strategy: AllocationStrategy,
  mqAll: readonly MessageQueue[],
  cidAll: readonly string[],
  stats: SizeStats,
): Map<string, string> {
  const owners = new Map<string, string>();
  for (const currentCID of cidAll) {
    const started = process.hrtime.bigint();
    const mine = strategy.allocate({ consumerGroup: 'simulator', currentCID, mqAll, cidAll });
    stats.nanos += process.hrtime.bigint() - started;
    stats.calls++;
    for (const mq of mine) {
      const key = mqKey(mq);
      const other = owners.get(key);
      if (other !== undefined)
        throw new Error(`${strategy.name} gives ${key.replaceAll('\u0000', '/')} to both ${other} and ${currentCID}`);
      owners.set(key, currentCID);
    }
  }
  if (owners.size !== mqAll.length)
    throw new Error(
      `${strategy.name} leaves ${mqAll.length - owners.size} of ${mqAll.length} queues without an owner (${cidAll.length} members)`,
    );
  return owners;
}

function recordBalance(owners: Map<string, string>, cidAll: readonly string[], stats: SizeStats): void {
  const shares = new Map<string, number>(cidAll.map((id) => [id, 0]));
  for (const owner of owners.values()) shares.set(owner, shares.get(owner)! + 1);
  const values = [...shares.values()];
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length;
  stats.states++;
  stats.maxMinusMin = Math.max(stats.maxMinusMin, Math.max(...values) - Math.min(...values));
  stats.stddevSum += Math.sqrt(variance);
}

/**
 * Runs every strategy over the same seeded membership walk for each queue count and measures balance, queues moved
 * per change against the lower bound, and time per allocate call. Results other than timings depend only on the
 * options (and the strategies' code).
 */
export function simulate(
  options: SimulationOptions,
  strategies: readonly AllocationStrategy[] = defaultSimulatedStrategies(),
): SimulationRun {
  const scenarios: ScenarioResult[] = [];
  const summaries: StrategySummary[] = [];
  for (const queues of options.queueCounts) {
    const mqAll = simulatedQueues(queues, options.brokers);
    const walk = membershipWalk(new SeededRandom(Math.imul(options.seed, 0x9e3779b1) ^ queues), options);
    for (const strategy of strategies) {
      const bySize = new Map<number, SizeStats>();
      const statsFor = (size: number): SizeStats => {
        let stats = bySize.get(size);
        if (!stats) {
          stats = {
            states: 0,
            maxMinusMin: 0,
            stddevSum: 0,
            calls: 0,
            nanos: 0n,
            changes: 0,
            movedSum: 0,
            movedWorst: 0,
            lowerBoundSum: 0,
          };
          bySize.set(size, stats);
        }
        return stats;
      };
      const first = walk[0]?.before ?? [];
      let owners = ownership(strategy, mqAll, first, statsFor(first.length));
      recordBalance(owners, first, statsFor(first.length));
      let worstExcess = 0;
      for (const change of walk) {
        const next = ownership(strategy, mqAll, change.after, statsFor(change.after.length));
        recordBalance(next, change.after, statsFor(change.after.length));
        let moved = 0;
        let lowerBound = 0;
        for (const [key, owner] of next) if (owners.get(key) !== owner) moved++;
        const shareOf = change.kind === 'join' ? next : owners;
        for (const owner of shareOf.values()) if (owner === change.member) lowerBound++;
        const stats = statsFor(change.before.length);
        stats.changes++;
        stats.movedSum += moved;
        stats.movedWorst = Math.max(stats.movedWorst, moved);
        stats.lowerBoundSum += lowerBound;
        worstExcess = Math.max(worstExcess, moved - lowerBound);
        owners = next;
      }
      let moved = 0;
      let lowerBound = 0;
      let changes = 0;
      let worstSizeRatio = 0;
      let maxMinusMin = 0;
      let calls = 0;
      let nanos = 0n;
      for (const size of [...bySize.keys()].sort((a, b) => a - b)) {
        const s = bySize.get(size)!;
        scenarios.push({
          strategy: strategy.name,
          queues,
          brokers: options.brokers,
          members: size,
          balance: { maxMinusMin: s.maxMinusMin, stddev: round(s.stddevSum / Math.max(1, s.states)) },
          moved: {
            mean: round(s.movedSum / Math.max(1, s.changes)),
            worst: s.movedWorst,
            lowerBoundMean: round(s.lowerBoundSum / Math.max(1, s.changes)),
          },
          allocateMicros: round(Number(s.nanos) / 1000 / Math.max(1, s.calls), 2),
        });
        moved += s.movedSum;
        lowerBound += s.lowerBoundSum;
        changes += s.changes;
        if (s.lowerBoundSum > 0) worstSizeRatio = Math.max(worstSizeRatio, s.movedSum / s.lowerBoundSum);
        maxMinusMin = Math.max(maxMinusMin, s.maxMinusMin);
        calls += s.calls;
        nanos += s.nanos;
      }
      summaries.push({
        strategy: strategy.name,
        queues,
        changes,
        movedRatio: round(lowerBound > 0 ? moved / lowerBound : 0),
        worstSizeRatio: round(worstSizeRatio),
        worstExcess,
        maxMinusMin,
        allocateMicros: round(Number(nanos) / 1000 / Math.max(1, calls), 2),
      });
    }
  }
  return { report: { seed: options.seed, scenarios }, summaries };
}
