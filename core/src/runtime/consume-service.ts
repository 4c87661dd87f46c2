import type { EventBus } from '../events/event-bus';
import type { MessageRecord } from '../model/message';
import type { ResolvedGroupOptions } from '../options/consumer-options';
import type { Profile } from '../options/profile';
import type { RetryChannel } from '../spi/transport.roles';
import type { ByteBudget } from './byte-budget';
import type { ConsumeHook } from './consume-hook';
import type { ConsumedMessage } from './consumed-message';
import type { HandlerBinding } from './handler-binding';
import type { ProcessQueue } from './process-queue';
import type { QueueLockManager } from './queue-lock-manager';

export interface ConsumeServiceDeps {
  readonly group: string;
  readonly options: ResolvedGroupOptions;
  readonly profile: Profile;
  /** Handlers by (original) topic. */
  readonly handlers: ReadonlyMap<string, HandlerBinding>;
  readonly retry: RetryChannel | undefined;
  /** Present when queues are consumed under broker locks (ORDERLY in CLUSTERING, or exclusiveHandoff). */
  readonly lockManager: QueueLockManager | undefined;
  readonly events: EventBus;
  readonly hooks: readonly ConsumeHook[];
  readonly budget: ByteBudget;
}

/** What the pull loops hand messages to: concurrently or orderly. */
export interface ConsumeService {
  readonly inFlight: number;
  readonly peakInFlight: number;
  readonly queued: number;
  wrap(pq: ProcessQueue, record: MessageRecord, seq: number): ConsumedMessage;
  submit(pq: ProcessQueue, messages: readonly ConsumedMessage[]): void;
  discardQueued(pq: ProcessQueue): void;
  abortRunning(pqs: ReadonlySet<ProcessQueue>, reason: Error): number;
  close(): void;
}
