import type { DependencyContainer } from 'tsyringe';
import type { MessageModel } from '../model/constants';
import type { MessageQueue } from '../model/message-queue';
import type { EventBus } from '../events/event-bus';
import type { TransportRoles } from './transport.plugin';

/**
 * Where `read` looks (RocketMQ's ReadOffsetType, without READ_FROM_MEMORY, which core never asks for): the
 * store itself (a newly owned queue), or the in-memory value when there is one (a pull consumer's `committed`).
 */
export type ReadOffsetFrom = 'store' | 'memory-then-store';

/**
 * Consumer progress for one group, with RocketMQ's OffsetStore semantics
 * (docs/rocketmq-consumer-model.md#offset-stores): an in-memory table updated on every commit and persisted in the
 * background, on queue drop and on stop.
 */
export interface PersistOptions {
  /** Write unchanged offsets too. */
  readonly unchanged?: boolean;
}

export interface OffsetStore {
  load(): Promise<void>;
  /** Resolves to the next offset to consume, or -1 when none is stored; rejects with OffsetStoreError. */
  read(mq: MessageQueue, from: ReadOffsetFrom): Promise<number>;
  /** Records progress in memory. With increaseOnly the value never moves backwards. */
  update(mq: MessageQueue, offset: number, options: { increaseOnly: boolean }): void;
  /** An explicit lowering write (admin reset, reset-to-timestamp, OFFSET_ILLEGAL repair), persisted as such. */
  reset(mq: MessageQueue, offset: number): void;
  /**
   * Writes the in-memory offsets of these queues to the store; resolves when written. A store may skip offsets
   * it wrote before and that did not change since, unless `options.unchanged` asks for every one (after a route
   * change: the broker behind a queue may be another, which never received them).
   */
  persist(mqs: Iterable<MessageQueue>, options?: PersistOptions): Promise<void>;
  /** Forgets the in-memory entry (after a queue is released); the stored value stays. */
  remove(mq: MessageQueue): void;
  /** Releases resources (connections, timers). */
  close?(): Promise<void>;
  /**
   * Flow control from the store: the store calls `listener(true)` to pause pulling (e.g. too much progress could
   * not be persisted during an outage) and `listener(false)` to resume. A listener added while paused hears
   * `true` at once. Returns an unsubscribe function.
   */
  watchBackpressure?(listener: (paused: boolean) => void): () => void;
}

export interface OffsetStoreContext {
  readonly group: string;
  readonly clientId: string;
  /** The app's `instanceName` option when one was given (stable across restarts). */
  readonly instanceName: string | undefined;
  readonly messageModel: MessageModel;
  readonly container: DependencyContainer;
  readonly events: EventBus;
  /** The app's connected transport (the broker store commits through its `offsets` role). */
  readonly transport: TransportRoles;
}

/**
 * Makes one OffsetStore per consumer group. `models` says which message models the store can serve:
 * a BROADCASTING consumer needs a provider that lists it (the broker store serves CLUSTERING only).
 */
export interface OffsetStoreProvider {
  readonly name: string;
  readonly models: readonly MessageModel[];
  create(context: OffsetStoreContext): OffsetStore;
}
