import { mqKey, type MessageQueue } from '../../model/message-queue';
import type { QueueLocks } from '../../spi/transport.roles';
import type { GroupContext } from './group-context';
import { reportError } from '../../events/report-error';
import { every } from '../../util/periodic';
import type { ProcessQueue } from './process-queue';

/**
 * Broker queue locks for ORDERLY consumers (RocketMQ's RebalanceImpl.lock/lockAll/unlock) and for mqkit's
 * exclusive handoff: a queue is taken only after its lock is granted, locks are renewed every lockRenewMs, the
 * client trusts a lock for lockClientExpiryMs after the last grant, and a released queue is unlocked only after it
 * drained and its offset was persisted.
 *
 * Renewals have a signal of their own rather than the group's: they must go on while a stopping group drains its
 * queues (a drain can outlast the broker's lock lifetime otherwise), and end only after the releases unlocked.
 */
export class QueueLockManager {
  private readonly renewals = new AbortController();
  private renewing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: GroupContext,
    private readonly locks: QueueLocks,
    /** A renewal was refused: another member holds the queue now. */
    private readonly onLockLost: (pq: ProcessQueue) => void = () => undefined,
  ) {}

  /**
   * Locks one queue before it is added; resolves with the time the request was sent when granted (the lock's age
   * counts from then, never from the answer, so a slow answer cannot make the client trust it longer than the
   * broker does), or undefined when another member holds it or the broker did not answer.
   */
  async lock(mq: MessageQueue): Promise<number | undefined> {
    const requestedAt = Date.now();
    try {
      const granted = await this.locks.lock(this.ctx.group, [mq]);
      return granted.some((g) => g.queueId === mq.queueId && g.brokerName === mq.brokerName && g.topic === mq.topic)
        ? requestedAt
        : undefined;
    } catch (error) {
      reportError(this.ctx, 'lock', error, mq);
      return undefined;
    }
  }

  markLocked(pq: ProcessQueue, now = Date.now()): void {
    pq.lockGranted(now);
  }

  isValid(pq: ProcessQueue, now = Date.now()): boolean {
    return pq.lockValid(this.ctx.profile.lockClientExpiryMs, now);
  }

  /** Renews every active queue's lock every lockRenewMs (RocketMQ's lockAll) until stop(). */
  startRenewing(active: () => ProcessQueue[]): void {
    this.renewing = every(
      this.ctx.profile.lockRenewMs,
      () => this.renew(active()),
      this.renewals.signal,
      (error) => reportError(this.ctx, 'lock-renew', error),
    );
  }

  async renew(pqs: ProcessQueue[]): Promise<void> {
    if (pqs.length === 0) return;
    const requestedAt = Date.now();
    try {
      const granted = await this.locks.lock(
        this.ctx.group,
        pqs.map((pq) => pq.mq),
      );
      const keys = new Set(granted.map(mqKey));
      for (const pq of pqs) {
        if (keys.has(pq.key)) this.markLocked(pq, requestedAt);
        else if (pq.locked) {
          pq.lockLost();
          this.onLockLost(pq);
        }
      }
    } catch (error) {
      // RocketMQ leaves the state unchanged when the request fails; the client-side expiry then decides.
      reportError(this.ctx, 'lock-renew', error);
    }
  }

  /** Unlocks and waits for the broker's answer (RocketMQ sends this oneway; a handoff needs it confirmed). */
  async unlock(mqs: readonly MessageQueue[]): Promise<void> {
    if (mqs.length === 0) return;
    try {
      await this.locks.unlock(this.ctx.group, mqs);
    } catch (error) {
      reportError(this.ctx, 'unlock', error);
    }
  }

  /** Ends the renewals; resolves once a renewal in flight finished. */
  stop(): Promise<void> {
    this.renewals.abort();
    return this.renewing;
  }
}
