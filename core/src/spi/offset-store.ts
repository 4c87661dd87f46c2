import type { DependencyContainer } from 'tsyringe';
import type { MessageModel } from '../model/constants';
import type { MessageQueue } from '../model/message-queue';
import type { EventBus } from '../events/event-bus';
import type { LegacyOffsetStore } from './legacy-offset-store';
import type { TransportRoles } from './transport.plugin';

/** One offset for a store to write: the next offset of `mq` to consume. */
export interface OffsetWrite {
  /** The queue whose offset this is. */
  readonly mq: MessageQueue;
  /** The next offset to consume, a non-negative integer. */
  readonly offset: number;
  /**
   * An explicit reset (an admin reset, a reset to a time, the repair of an OFFSET_ILLEGAL pull): the store writes
   * it as given, even below what it holds. False for ordinary progress.
   */
  readonly lowering: boolean;
}

/**
 * Where a consumer group's offsets are kept: reads and writes, nothing in memory. The group's ConsumeProgress keeps
 * the in-memory table (RocketMQ's updateOffset rules, what changed, what is due again) and hands a store only what
 * is to be written; a store keeps no offset table of its own.
 *
 * An ordinary entry (`lowering: false`) is progress. A store that can compare and set in one step keeps the higher
 * of what it holds and what it is given, so a member that lost a queue and writes late cannot move the group back
 * (the Redis store's script does). One that cannot overwrites, as RocketMQ's broker does (ConsumerOffsetManager
 * .commitOffset) and a member's own file does; such a store declares `keepsMaximum: false` to
 * `describeOffsetStoreContract`. A lowering entry is written as given in either case.
 *
 * Every store passes `describeOffsetStoreContract` of `@mqkit/core/testing`. A store written against the former
 * interface (`update`, `reset`, `persist`, `remove`) still runs for one release: see {@link LegacyOffsetStore}.
 *
 * @example
 * ```ts
 * class MapOffsetStore implements OffsetStore {
 *   readonly #offsets = new Map<string, number>();
 *
 *   async load(): Promise<void> {}
 *
 *   async read(mq: MessageQueue): Promise<number> {
 *     return this.#offsets.get(mqKey(mq)) ?? -1;
 *   }
 *
 *   // Keeps the maximum, as a store that compares and sets in one step does; a reset is written as given.
 *   async write(entries: readonly OffsetWrite[]): Promise<void> {
 *     for (const { mq, offset, lowering } of entries) {
 *       const stored = this.#offsets.get(mqKey(mq)) ?? -1;
 *       if (lowering || offset > stored) this.#offsets.set(mqKey(mq), offset);
 *     }
 *   }
 * }
 *
 * const provider: OffsetStoreProvider = { name: 'map', models: ['CLUSTERING'], create: () => new MapOffsetStore() };
 * ```
 */
export interface OffsetStore {
  /** Prepares the store (connects, reads a file); called once before any read or write. Rejects to fail the start. */
  load(): Promise<void>;
  /**
   * The stored offset of this queue (the next one to consume), read from the store itself, or -1 when none is
   * stored; rejects with OffsetStoreError when the store cannot answer or holds something that is not an offset.
   */
  read(mq: MessageQueue): Promise<number>;
  /**
   * Stores these offsets; resolves once every one is stored, rejects (with OffsetStoreError) when any is not.
   * Nothing is lost by a rejection: ConsumeProgress hands the entries again at its next write. At most one entry per
   * queue; an empty list writes nothing. Concurrent calls are allowed; each resolves when its own entries are stored.
   */
  write(entries: readonly OffsetWrite[]): Promise<void>;
  /** Releases resources (connections, timers), after the writes in flight finished. */
  close?(): Promise<void>;
  /**
   * Flow control from the store: the store calls `listener(true)` to pause pulling (e.g. too much progress could
   * not be written during an outage) and `listener(false)` to resume. A listener added while paused hears `true` at
   * once. Returns an unsubscribe function.
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
 * A provider may still return a {@link LegacyOffsetStore} for one release; the app wraps it and warns once.
 */
export interface OffsetStoreProvider {
  readonly name: string;
  readonly models: readonly MessageModel[];
  create(context: OffsetStoreContext): OffsetStore | LegacyOffsetStore;
}
