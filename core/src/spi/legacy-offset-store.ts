import type { MessageQueue } from '../model/message-queue';

/**
 * Where a LegacyOffsetStore's `read` looks (RocketMQ's ReadOffsetType, without READ_FROM_MEMORY): the store itself,
 * or its in-memory value when there is one.
 *
 * @deprecated Part of {@link LegacyOffsetStore}: an OffsetStore reads from the store only.
 */
export type ReadOffsetFrom = 'store' | 'memory-then-store';

/**
 * The options of a LegacyOffsetStore's `persist`.
 *
 * @deprecated Part of {@link LegacyOffsetStore}: ConsumeProgress now decides which offsets are written.
 */
export interface PersistOptions {
  /** Write unchanged offsets too. */
  readonly unchanged?: boolean;
}

/**
 * The former OffsetStore interface, in which every store kept its own in-memory offset table (RocketMQ's
 * OffsetStore: update in memory, persist in the background). A provider may still return one for this release:
 * the app detects it (it has `update` and `persist` and no `write`), wraps it and emits a DeprecationWarning
 * (code `MQKIT_LEGACY_OFFSET_STORE`) once per process. The wrapper hands each write to `update` (or `reset` for a
 * lowering entry) and then `persist(mqs, { unchanged: true })`; it never calls `remove`.
 *
 * @deprecated Implement `OffsetStore` instead: `read(mq)` from the store and `write(entries)`, with no table
 * in memory (ConsumeProgress keeps it). The wrapper and this type go in the next major release.
 */
export interface LegacyOffsetStore {
  load(): Promise<void>;
  /** Resolves to the next offset to consume, or -1 when none is stored; rejects with OffsetStoreError. */
  read(mq: MessageQueue, from: ReadOffsetFrom): Promise<number>;
  /** Records progress in memory. With increaseOnly the value never moves backwards. */
  update(mq: MessageQueue, offset: number, options: { increaseOnly: boolean }): void;
  /** An explicit lowering write (admin reset, reset-to-timestamp, OFFSET_ILLEGAL repair), persisted as such. */
  reset(mq: MessageQueue, offset: number): void;
  /**
   * Writes the in-memory offsets of these queues to the store; resolves when written. A store may skip offsets
   * it wrote before and that did not change since, unless `options.unchanged` asks for every one.
   */
  persist(mqs: Iterable<MessageQueue>, options?: PersistOptions): Promise<void>;
  /** Forgets the in-memory entry (after a queue is released); the stored value stays. */
  remove(mq: MessageQueue): void;
  /** Releases resources (connections, timers). */
  close?(): Promise<void>;
  /** Flow control from the store, as OffsetStore's. */
  watchBackpressure?(listener: (paused: boolean) => void): () => void;
}
