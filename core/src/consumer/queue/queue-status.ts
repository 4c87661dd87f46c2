import type { QueueStatus } from '../../model/consumer-status';
import type { ProcessQueue } from './process-queue';

/** What `status().queues` shows of one owned queue. */
export function queueStatus(pq: ProcessQueue): QueueStatus {
  const committable = pq.progress.committable;
  return {
    mq: pq.mq,
    state: pq.state,
    cachedCount: pq.msgCount,
    cachedBytes: pq.msgBytes,
    nextOffset: pq.nextOffset,
    committableOffset: committable,
    committedOffset: committable,
    persistedOffset: pq.progress.persisted,
    maxOffset: pq.brokerMaxOffset,
    lag: pq.brokerMaxOffset < 0 ? 0 : Math.max(0, pq.brokerMaxOffset - Math.max(committable, 0)),
    inflight: pq.inflight,
    lastPullTimestamp: pq.lastPullTimestamp,
    lastConsumeTimestamp: pq.lastConsumeTimestamp,
  };
}
