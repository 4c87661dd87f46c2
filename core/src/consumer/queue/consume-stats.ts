import type { TopicStatsReport } from '../../model/consumer-status';
import { getOrCreate } from '../../util/get-or-create';

/**
 * The figures RocketMQ's ConsumerStatsManager keeps per topic of a group, which `mqadmin consumerStatus` and the
 * dashboard show: pull TPS and RT, consume OK and failed TPS, consume RT, and failed messages in the last hour.
 *
 * Counting costs a few field increments per pull and per handler call. Like Java's StatsItem, the rates come
 * from snapshots of the running totals: one every 10 s, the last 7 kept (a minute, plus the live totals at
 * report time); failed messages per hour from snapshots every 10 minutes.
 */
export class TopicCounters {
  pulledMessages = 0;
  pullRtTotal = 0;
  /** FOUND pulls (Java counts the RT of pulls that returned messages). */
  pulls = 0;
  okMessages = 0;
  failedMessages = 0;
  consumeRtTotal = 0;
  /** Timed handler calls (a sample of them; see ConsumeStats.timeThisCall). */
  consumeRtCalls = 0;
}

/**
 * Counts finished messages of a queue (ConsumerStatsManager's CONSUME_OK/FAILED_TPS and CONSUME_RT; a negative
 * duration: not timed) and moves its lastConsumeTimestamp. The queue caches its topic's counters.
 */
export function countConsumed(
  stats: ConsumeStats,
  pq: { counters(stats: ConsumeStats): TopicCounters; consumedAt(now: number): void },
  ok: number,
  failed: number,
  durationMs: number,
  now: number,
): void {
  const counters = pq.counters(stats);
  counters.okMessages += ok;
  counters.failedMessages += failed;
  if (durationMs >= 0) {
    counters.consumeRtTotal += durationMs;
    counters.consumeRtCalls++;
  }
  pq.consumedAt(now);
}

type Snapshot = { readonly at: number } & Readonly<Omit<TopicCounters, never>>;

const MINUTE_SAMPLE_MS = 10_000;
const HOUR_SAMPLE_MS = 10 * 60_000;
const KEPT = 7;
/** One handler call in this many is timed for consumeRT (Date.now() twice per call showed in profiles). */
const TIMED_EVERY = 16;

function snapshot(c: TopicCounters, at: number): Snapshot {
  return {
    at,
    pulledMessages: c.pulledMessages,
    pullRtTotal: c.pullRtTotal,
    pulls: c.pulls,
    okMessages: c.okMessages,
    failedMessages: c.failedMessages,
    consumeRtTotal: c.consumeRtTotal,
    consumeRtCalls: c.consumeRtCalls,
  };
}

class TopicWindows {
  readonly counters = new TopicCounters();
  private readonly minute: Snapshot[];
  private readonly hour: Snapshot[];
  private lastHourSample: number;

  constructor(now: number) {
    const zero = snapshot(this.counters, now);
    this.minute = [zero];
    this.hour = [zero];
    this.lastHourSample = now;
  }

  sample(now: number): void {
    push(this.minute, snapshot(this.counters, now));
    if (now - this.lastHourSample >= HOUR_SAMPLE_MS) {
      push(this.hour, snapshot(this.counters, now));
      this.lastHourSample = now;
    }
  }

  report(topic: string, now: number): TopicStatsReport {
    const first = this.minute[0]!;
    const last = snapshot(this.counters, now);
    const seconds = Math.max(1, last.at - first.at) / 1000;
    const rate = (key: keyof TopicCounters) => (last[key] - first[key]) / seconds;
    const average = (total: keyof TopicCounters, times: keyof TopicCounters) => {
      const n = last[times] - first[times];
      return n > 0 ? (last[total] - first[total]) / n : 0;
    };
    return {
      topic,
      pullRT: average('pullRtTotal', 'pulls'),
      pullTPS: rate('pulledMessages'),
      consumeRT: average('consumeRtTotal', 'consumeRtCalls'),
      consumeOKTPS: rate('okMessages'),
      consumeFailedTPS: rate('failedMessages'),
      consumeFailedMsgs: last.failedMessages - this.hour[0]!.failedMessages,
    };
  }
}

function push(list: Snapshot[], s: Snapshot): void {
  list.push(s);
  if (list.length > KEPT) list.shift();
}

export class ConsumeStats {
  private readonly topics = new Map<string, TopicWindows>();
  private calls = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  /** The counters of a topic (ProcessQueues keep theirs, so the hot path does no lookup). */
  counters(topic: string): TopicCounters {
    return getOrCreate(this.topics, topic, () => new TopicWindows(this.clock())).counters;
  }

  /** Whether to time this handler call for consumeRT. */
  timeThisCall(): boolean {
    return (++this.calls & (TIMED_EVERY - 1)) === 0;
  }

  /** Takes the snapshots; called every 10 s. */
  sample(): void {
    const now = this.clock();
    for (const windows of this.topics.values()) windows.sample(now);
  }

  report(): TopicStatsReport[] {
    const now = this.clock();
    return [...this.topics]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([topic, windows]) => windows.report(topic, now));
  }

  static readonly SAMPLE_MS = MINUTE_SAMPLE_MS;
}
