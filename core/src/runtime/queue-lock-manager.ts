import { Subject, exhaustMap, interval, takeUntil } from 'rxjs';
import type { EventBus } from '../events/event-bus';
import { mqKey, type MessageQueue } from '../model/message-queue';
import type { Profile } from '../options/profile';
import type { QueueLocks } from '../spi/transport.roles';
import { toError } from '../util/deferred';
import type { ProcessQueue } from './process-queue';

/**
 * Broker queue locks for ORDERLY consumers (RocketMQ's RebalanceImpl.lock/lockAll/unlock) and for mqkit's
 * exclusive handoff: a queue is taken only after its lock is granted, locks are renewed every lockRenewMs, the
 * client trusts a lock for lockClientExpiryMs after the last grant, and a released queue is unlocked only after it
 * drained and its offset was persisted.
 */
export class QueueLockManager {
  private readonly stop$ = new Subject<void>();

  constructor(
    private readonly group: string,
    private readonly locks: QueueLocks,
    private readonly profile: Profile,
    private readonly events: EventBus,
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
      const granted = await this.locks.lock(this.group, [mq]);
      return granted.some((g) => g.queueId === mq.queueId && g.brokerName === mq.brokerName && g.topic === mq.topic) ? requestedAt : undefined;
    } catch (error) {
      this.events.emit('consumer.error', { group: this.group, where: 'lock', error: toError(error), mq });
      return undefined;
    }
  }

  markLocked(pq: ProcessQueue, now = Date.now()): void {
    pq.locked = true;
    pq.lastLockTimestamp = now;
  }

  isValid(pq: ProcessQueue, now = Date.now()): boolean {
    return pq.lockValid(this.profile.lockClientExpiryMs, now);
  }

  /** Renews every active queue's lock every lockRenewMs (RocketMQ's lockAll). */
  startRenewing(active: () => ProcessQueue[]): void {
    interval(this.profile.lockRenewMs)
      .pipe(
        exhaustMap(() => this.renew(active())),
        takeUntil(this.stop$),
      )
      .subscribe();
  }

  async renew(pqs: ProcessQueue[]): Promise<void> {
    if (pqs.length === 0) return;
    const requestedAt = Date.now();
    try {
      const granted = await this.locks.lock(
        this.group,
        pqs.map((pq) => pq.mq),
      );
      const keys = new Set(granted.map(mqKey));
      for (const pq of pqs) {
        if (keys.has(pq.key)) this.markLocked(pq, requestedAt);
        else if (pq.locked) {
          pq.locked = false;
          this.onLockLost(pq);
        }
      }
    } catch (error) {
      // RocketMQ leaves the state unchanged when the request fails; the client-side expiry then decides.
      this.events.emit('consumer.error', { group: this.group, where: 'lock-renew', error: toError(error) });
    }
  }

  /** Unlocks and waits for the broker's answer (RocketMQ sends this oneway; a handoff needs it confirmed). */
  async unlock(mqs: readonly MessageQueue[]): Promise<void> {
    if (mqs.length === 0) return;
    try {
      await this.locks.unlock(this.group, mqs);
    } catch (error) {
      this.events.emit('consumer.error', { group: this.group, where: 'unlock', error: toError(error) });
    }
  }

  stop(): void {
    this.stop$.next();
  }
}
