import { describe, expect, it } from 'vitest';
import { ConsumeStats } from './consume-stats';

describe('ConsumeStats', () => {
  it("reports ConsumerStatsManager's figures: rates over the kept minute of snapshots, RT per timed call, failures per hour", () => {
    let now = 1_000_000;
    const stats = new ConsumeStats(() => now);
    const t = stats.counters('T');
    stats.counters('A');
    // 30 s: 3,000 messages pulled in 30 FOUND pulls of 4 ms; 2,970 consumed, 30 failed; 10 timed calls of 2 ms.
    for (let i = 0; i < 3; i++) {
      now += 10_000;
      t.pulledMessages += 1_000;
      t.pulls += 10;
      t.pullRtTotal += 40;
      t.okMessages += 990;
      t.failedMessages += 10;
      t.consumeRtTotal += 6;
      t.consumeRtCalls += 3;
      stats.sample();
    }
    const [a, report] = stats.report();
    expect(a).toMatchObject({ topic: 'A', pullTPS: 0, consumeOKTPS: 0, pullRT: 0, consumeRT: 0 });
    expect(report).toEqual({
      topic: 'T',
      pullRT: 4,
      pullTPS: 100,
      consumeRT: 2,
      consumeOKTPS: 99,
      consumeFailedTPS: 1,
      consumeFailedMsgs: 30,
    });
    // After the minute is over, an idle topic's rates fall to 0 (7 snapshots kept), its failures stay for the hour.
    for (let i = 0; i < 7; i++) {
      now += 10_000;
      stats.sample();
    }
    expect(stats.report()[1]).toMatchObject({
      pullTPS: 0,
      consumeOKTPS: 0,
      consumeFailedTPS: 0,
      consumeFailedMsgs: 30,
    });
    for (let i = 0; i < 8; i++) {
      now += 10 * 60_000;
      stats.sample();
    }
    expect(stats.report()[1]!.consumeFailedMsgs).toBe(0);
  });

  it('times one handler call in sixteen', () => {
    const stats = new ConsumeStats();
    const timed = Array.from({ length: 64 }, () => stats.timeThisCall()).filter(Boolean);
    expect(timed).toHaveLength(4);
  });
});
