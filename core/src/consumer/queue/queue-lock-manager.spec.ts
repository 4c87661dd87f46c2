import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mqKey, type MessageQueue } from '../../model/message-queue';
import type { QueueLocks } from '../../spi/transport.roles';
import { ConsumeProgress } from '../progress/consume-progress';
import { MemoryOffsetStore, eventsOf, processQueue, testGroup, type TestGroup } from '../runtime.fixture';
import type { ProcessQueue } from './process-queue';
import { QueueLockManager } from './queue-lock-manager';

const mq = (queueId: number): MessageQueue => ({ topic: 'T', brokerName: 'broker-a', queueId });

/** A broker's lock table for one client: grants what `holds` allows; each request can be held until released. */
class FakeLocks implements QueueLocks {
  readonly requests: MessageQueue[][] = [];
  readonly unlocked: MessageQueue[][] = [];
  /** Queues another member holds: never granted. */
  readonly heldElsewhere = new Set<string>();
  /** When set, the next requests fail with it. */
  failWith: Error | undefined;
  /** When set, requests wait for it before they answer. */
  gate: Promise<void> | undefined;

  async lock(_group: string, mqs: readonly MessageQueue[]): Promise<readonly MessageQueue[]> {
    this.requests.push([...mqs]);
    await this.gate;
    if (this.failWith) throw this.failWith;
    return mqs.filter((q) => !this.heldElsewhere.has(mqKey(q)));
  }

  async unlock(_group: string, mqs: readonly MessageQueue[]): Promise<void> {
    this.unlocked.push([...mqs]);
    if (this.failWith) throw this.failWith;
  }
}

/** A gate the spec opens by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

let group: TestGroup;
let progress: ConsumeProgress;
let locks: FakeLocks;
let lost: ProcessQueue[];
let manager: QueueLockManager;
const queue = (queueId: number): ProcessQueue => processQueue(group, progress, 0, mq(queueId));

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  // The fast profile: renew every 150 ms, trust a lock 500 ms after its last grant.
  group = testGroup({ consumeMode: 'ORDERLY' }, ['consumer.error']);
  progress = new ConsumeProgress(group, new MemoryOffsetStore(), false);
  locks = new FakeLocks();
  lost = [];
  manager = new QueueLockManager(group, locks, (pq) => lost.push(pq));
});

afterEach(async () => {
  await manager.stop();
  vi.useRealTimers();
});

describe('QueueLockManager: locking a queue before it is taken', () => {
  it('answers the time the request was sent when granted, not the time of the answer', async () => {
    const answer = gate();
    locks.gate = answer.promise;
    const sentAt = Date.now();
    const granted = manager.lock(mq(0));
    await vi.advanceTimersByTimeAsync(400);
    answer.open();
    expect(await granted).toBe(sentAt);
    expect(locks.requests).toEqual([[mq(0)]]);
  });

  it('answers undefined when another member holds the queue', async () => {
    locks.heldElsewhere.add(mqKey(mq(1)));
    expect(await manager.lock(mq(1))).toBeUndefined();
    expect(eventsOf(group, 'consumer.error')).toEqual([]);
  });

  it('answers undefined, and reports it, when the broker does not answer', async () => {
    locks.failWith = new Error('timeout');
    expect(await manager.lock(mq(0))).toBeUndefined();
    expect(eventsOf(group, 'consumer.error')).toMatchObject([{ group: 'g', where: 'lock', mq: mq(0) }]);
  });
});

describe('QueueLockManager: trusting a lock', () => {
  it('trusts a granted lock for lockClientExpiryMs after the grant, and not before it was granted', () => {
    const pq = queue(0);
    expect(manager.isValid(pq)).toBe(false);
    const grantedAt = Date.now();
    manager.markLocked(pq, grantedAt);
    expect(manager.isValid(pq, grantedAt + group.profile.lockClientExpiryMs)).toBe(true);
    expect(manager.isValid(pq, grantedAt + group.profile.lockClientExpiryMs + 1)).toBe(false);
  });
});

describe('QueueLockManager: renewals', () => {
  it('renews every queue in one request: a grant counts from the request, a refusal of a held lock is a lost lock', async () => {
    const [kept, taken, never] = [queue(0), queue(1), queue(2)];
    manager.markLocked(kept, Date.now());
    manager.markLocked(taken, Date.now());
    locks.heldElsewhere.add(mqKey(mq(1)));
    locks.heldElsewhere.add(mqKey(mq(2)));
    const answer = gate();
    locks.gate = answer.promise;
    const sentAt = Date.now();
    const renewing = manager.renew([kept, taken, never]);
    await vi.advanceTimersByTimeAsync(300);
    answer.open();
    await renewing;
    expect(locks.requests).toEqual([[mq(0), mq(1), mq(2)]]);
    // The renewed lock is trusted from the request on, though the answer came 300 ms later.
    const expiry = group.profile.lockClientExpiryMs;
    expect(manager.isValid(kept, sentAt + expiry)).toBe(true);
    expect(manager.isValid(kept, sentAt + expiry + 1)).toBe(false);
    // Lost at once, though its last grant is younger than lockClientExpiryMs.
    expect(manager.isValid(taken, sentAt + 300)).toBe(false);
    // Only a lock this member held can be lost.
    expect(lost).toEqual([taken]);
  });

  it('leaves every lock as it was when the renewal fails (the client-side expiry decides), and reports it', async () => {
    const pq = queue(0);
    const grantedAt = Date.now();
    manager.markLocked(pq, grantedAt);
    locks.failWith = new Error('broker down');
    await manager.renew([pq]);
    expect(manager.isValid(pq, grantedAt + group.profile.lockClientExpiryMs)).toBe(true);
    expect(lost).toEqual([]);
    expect(eventsOf(group, 'consumer.error')).toMatchObject([{ where: 'lock-renew' }]);
  });

  it('sends nothing for no queues', async () => {
    await manager.renew([]);
    expect(locks.requests).toEqual([]);
  });

  it('renews the active queues every lockRenewMs until stop(), which waits for the renewal in flight', async () => {
    const pqs = [queue(0)];
    manager.startRenewing(() => pqs);
    await vi.advanceTimersByTimeAsync(group.profile.lockRenewMs - 1);
    expect(locks.requests).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(locks.requests).toEqual([[mq(0)]]);
    pqs.push(queue(1));
    await vi.advanceTimersByTimeAsync(group.profile.lockRenewMs);
    expect(locks.requests).toEqual([[mq(0)], [mq(0), mq(1)]]);

    const answer = gate();
    locks.gate = answer.promise;
    await vi.advanceTimersByTimeAsync(group.profile.lockRenewMs);
    expect(locks.requests).toHaveLength(3);
    let stopped = false;
    const stopping = manager.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    answer.open();
    await stopping;
    // Renewed by the request that was in flight, and nothing sent after the stop.
    expect(manager.isValid(pqs[1]!)).toBe(true);
    await vi.advanceTimersByTimeAsync(5 * group.profile.lockRenewMs);
    expect(locks.requests).toHaveLength(3);
  });
});

describe('QueueLockManager: unlocking', () => {
  it('unlocks the queues in one request and resolves once the broker answered', async () => {
    await manager.unlock([mq(0), mq(1)]);
    expect(locks.unlocked).toEqual([[mq(0), mq(1)]]);
  });

  it('sends nothing for no queues, and reports a failed unlock instead of throwing', async () => {
    await manager.unlock([]);
    expect(locks.unlocked).toEqual([]);
    locks.failWith = new Error('broker down');
    await manager.unlock([mq(0)]);
    expect(eventsOf(group, 'consumer.error')).toMatchObject([{ where: 'unlock' }]);
  });
});
