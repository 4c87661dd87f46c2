import { describe, expect, it } from 'vitest';
import { countOrderViolations, DeliveryLog } from './delivery-log';

const d = (at: number, offset: number, queue = 'broker-a/0') => ({ at, queue, offset });

describe('countOrderViolations', () => {
  it('is 0 for each queue handled in offset order, however the queues interleave', () => {
    expect(countOrderViolations([d(1, 0), d(1, 0, 'broker-b/0'), d(2, 1), d(3, 1, 'broker-b/0'), d(4, 2)])).toBe(0);
  });

  it('counts a message first handled after a later offset of its own queue', () => {
    // 2 overtook 1: 1 is the violation, once; 3 comes after 2 and is in order.
    expect(countOrderViolations([d(1, 0), d(2, 2), d(3, 1), d(4, 3)])).toBe(1);
  });

  it('counts every message of an overtaken run', () => {
    // A second member jumped to offset 10 while 5..9 were still to come from the first.
    expect(countOrderViolations([d(1, 4), d(2, 10), d(3, 5), d(3, 6), d(4, 7), d(5, 8), d(6, 9), d(7, 11)])).toBe(5);
  });

  it('walks handling time, not arrival order; equal times keep arrival order', () => {
    // Arrived 1 then 0, but 0 was handled first: in order.
    expect(countOrderViolations([d(5, 1), d(4, 0)])).toBe(0);
    // Same millisecond: arrival order decides (one member's lines arrive in the order it handled them).
    expect(countOrderViolations([d(4, 0), d(4, 1)])).toBe(0);
    expect(countOrderViolations([d(4, 1), d(4, 0)])).toBe(1);
  });

  it('keeps queues apart: a lower offset on another queue is no violation', () => {
    expect(countOrderViolations([d(1, 50, 'broker-a/0'), d(2, 3, 'broker-a/1'), d(3, 3, 'broker-b/0')])).toBe(0);
  });
});

describe('DeliveryLog', () => {
  it('counts a redelivery of a handled message as a duplicate, not an order violation', () => {
    const log = new DeliveryLog();
    // Member 0 handled offsets 0..3, died; member 1 replays from the committed offset 2, then goes on.
    for (const [seq, offset] of [
      [10, 0],
      [11, 1],
      [12, 2],
      [13, 3],
    ] as const)
      log.record(`D ${seq} ${100 + offset} broker-a/0 ${offset}`, 0);
    for (const [seq, offset] of [
      [12, 2],
      [13, 3],
      [14, 4],
    ] as const)
      log.record(`D ${seq} ${200 + offset} broker-a/0 ${offset}`, 1);
    const acknowledged = new Set([10, 11, 12, 13, 14, 15]);
    expect(log.duplicates(acknowledged)).toBe(2);
    expect(log.lost(acknowledged)).toBe(1);
    expect(log.orderViolations()).toBe(0);
  });

  it('counts first deliveries that overtook their queue', () => {
    const log = new DeliveryLog();
    log.record('D 1 100 broker-a/0 0');
    log.record('D 3 101 broker-a/0 2');
    log.record('D 2 102 broker-a/0 1');
    log.record('D 2 103 broker-a/0 1');
    expect(log.orderViolations()).toBe(1);
    expect(log.duplicates(new Set([1, 2, 3]))).toBe(1);
  });

  it('still reads the older lines: without an offset, or without a queue', () => {
    const log = new DeliveryLog({ trace: true });
    log.record('D 1 100 broker-a/0', 0);
    log.record('D 2 101', 1);
    log.record('D 2 102', 0);
    log.record('E 103 error');
    expect(log.unique).toBe(2);
    expect(log.duplicates(new Set([1, 2]))).toBe(1);
    expect(log.orderViolations()).toBe(0);
    expect(log.firstDeliveryFrom(2)).toBe(101);
    expect(log.duplicated()).toEqual([
      {
        seq: 2,
        deliveries: [
          [1, 101, ''],
          [0, 102, ''],
        ],
      },
    ]);
  });
});
