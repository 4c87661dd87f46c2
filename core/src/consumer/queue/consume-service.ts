import type { MessageRecord } from '../../model/message';
import type { ProcessQueue } from './process-queue';

/** What a submit accepted: records at or below the last offset taken are duplicates of a retried pull. */
export interface Accepted {
  readonly count: number;
  readonly bytes: number;
}

/**
 * What the pull loops hand records to: a scheduler of handler calls (concurrently or orderly). It runs them
 * through the group's HandlerInvoker and decides what their results mean; it never calls a handler itself.
 */
export interface ConsumeService {
  /** Calls taken from the schedule and not yet settled. */
  readonly inFlight: number;
  readonly peakInFlight: number;
  /** Work waiting for a slot. */
  readonly queued: number;
  /** Takes pulled records into the queue and schedules them. */
  submit(pq: ProcessQueue, records: readonly MessageRecord[]): Accepted;
  /** Forgets the not-yet-started work of a released queue; those messages stay unfinished, so the offset holds. */
  discardQueued(pq: ProcessQueue): void;
  /**
   * Gives up the running handler calls of these queues (a release past its deadline, a crash drop): each call's
   * `ctx.signal` aborts with `reason`, and its result no longer counts. Returns how many calls it gave up.
   */
  abandon(pqs: ReadonlySet<ProcessQueue>, reason: Error): number;
  close(): void;
}

/** A consume service that calls handlers (not the pull consumer's buffer): the user's pause holds its dispatch. */
export interface DispatchingConsumeService extends ConsumeService {
  /**
   * The user's pause: starts no handler call until `resumeDispatch()` (what is submitted, retried or scheduled
   * meanwhile waits, cached and unfinished). Resolves once the calls that were running have finished and their
   * results were processed, or at the resume, whichever comes first.
   */
  pauseDispatch(): Promise<void>;
  /** Starts what waited while paused. */
  resumeDispatch(): void;
}
