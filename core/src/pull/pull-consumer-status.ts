import type { ConsumerStatus } from '../model/consumer-status';
import type { PullMode } from './queue-selection';

/** What `PullConsumer.status()` reports: a push consumer's identity, queues and rates, plus how it reads. */
export type PullConsumerStatus = Pick<ConsumerStatus, 'group' | 'clientId' | 'queues' | 'topics' | 'unroutedTopics'> & {
  readonly mode: PullMode;
  /** Messages pulled and not polled yet. */
  readonly buffered: number;
};

/**
 * The status GET_CONSUMER_RUNNING_INFO reports, in a push consumer's shape so the dashboard and mqadmin read it as
 * they read any consumer's: nothing runs handlers here, so nothing is ever in flight, and the messages waiting for
 * a poll stand for queued tasks.
 */
export function runningStatus(status: PullConsumerStatus, paused: boolean, strategy: string): ConsumerStatus {
  return {
    ...status,
    state: 'running',
    ready: true,
    paused,
    strategy,
    lag: status.queues.reduce((n, q) => n + q.lag, 0),
    inFlight: 0,
    peakInFlight: 0,
    queuedTasks: status.buffered,
    lastError: undefined,
    consumeMode: 'CONCURRENTLY',
    consumeThreadMin: 1,
  };
}
