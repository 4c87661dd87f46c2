import type { ObservableInput } from 'rxjs';
import type { MessageQueue } from '../../model/message-queue';
import type { SubscriptionData } from '../../model/subscription';
import type { MessagePuller } from '../../spi/transport.roles';
import type { ConsumeProgress } from '../progress/consume-progress';
import type { ConsumeService } from './consume-service';
import type { ProcessQueue } from './process-queue';
import type { QueueLockManager } from './queue-lock-manager';
import type { QueueWork } from './queue-work';

/** The collaborators the table calls. */
export interface QueueTableParts {
  /** Subscriptions by topic, the retry topic included. */
  readonly subscriptions: ReadonlyMap<string, SubscriptionData>;
  readonly progress: ConsumeProgress;
  /** Where finished and released work leaves a queue's cache. */
  readonly work: QueueWork;
  readonly consume: ConsumeService;
  readonly puller: MessagePuller;
  /** Present when queues move under broker locks (ORDERLY in CLUSTERING, or exclusiveHandoff). */
  readonly locks: QueueLockManager | undefined;
  /** Where a newly owned queue starts: its stored offset, else what consumeFromWhere says. */
  startOffset(mq: MessageQueue): Promise<number>;
}

/** What the table asks of its group. */
export interface QueueTableHost {
  /** Undefined when this queue may pull; else resolves when it may resume (user pause, store backpressure). */
  whenRunning(pq: ProcessQueue): ObservableInput<unknown> | undefined;
  requestRebalance(): void;
  /** The owned queues changed: a heartbeat should tell the broker. */
  onAssignmentChanged(): void;
}
