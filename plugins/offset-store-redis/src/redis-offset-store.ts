import {
  OffsetStoreError,
  mqLabel,
  type EventBus,
  type MessageQueue,
  type OffsetStore,
  type ReadOffsetFrom,
} from '@mqkit/core';
import { OffsetTable, toError, type OffsetEntry } from '@mqkit/core/internal';
import { offsetFieldOf, offsetKeyOf, parseStoredOffset } from './offset-keys';
import { PERSIST_OFFSETS_COMMAND, parsePersistOffsetsReply, type PersistOffsetsReply } from './persist-offsets.script';
import { PersistCoalescer } from './persist-coalescer';
import { createOffsetClient, withPersistCommand, type OffsetClient } from './redis-client.factory';
import type { ResolvedRedisOffsetStoreOptions } from './redis-offset-store.options';
import './redis-offset-store.events';
import { watchConnection } from './connection-events';
import { whenClientReady } from './shared-client';
import { UnpersistedProgress, type BackpressureListener } from './unpersisted-progress';

const STORE = 'redis';

/**
 * RocketMQ's OffsetStore on Redis: an in-memory OffsetTable updated on every commit; a flush sends every dirty
 * offset of the queues asked for in one script call (EVALSHA), which raises a stored offset only when the new
 * value is higher, except for explicit resets. While Redis is unreachable commits stay in memory, ioredis
 * reconnects with back-off and the first flush after it writes the latest offsets.
 *
 * With `options.client` the store uses the app's client and never closes it: `close()` only removes the store's
 * listeners from it.
 */
export class RedisOffsetStore implements OffsetStore {
  private readonly table = new OffsetTable();
  private readonly client: OffsetClient;
  /** False for a client the app passed in: the app owns it, and the store never closes it. */
  private readonly ownsClient: boolean;
  private readonly unwatch: () => void;
  private readonly coalescer = new PersistCoalescer((mqs) => this.flush(mqs));
  private readonly progress: UnpersistedProgress;
  private readonly group: string;
  private readonly events: EventBus;
  private readonly keyPrefix: string;
  private connected = false;
  private lastConnectionError: Error | undefined;
  private closed = false;

  constructor(params: {
    readonly group: string;
    readonly events: EventBus;
    readonly options: ResolvedRedisOffsetStoreOptions;
  }) {
    this.group = params.group;
    this.events = params.events;
    this.keyPrefix = params.options.keyPrefix;
    this.progress = new UnpersistedProgress(params.options.maxUnpersistedMessages);
    const shared = params.options.client;
    this.ownsClient = shared === undefined;
    this.client = shared === undefined ? createOffsetClient(params.options) : withPersistCommand(shared);
    // ioredis reports each failed (re)connect attempt as 'error' and each lost connection as 'close'. One event
    // per outage is enough: the flushes that fail during it report themselves.
    this.unwatch = watchConnection(this.client, {
      error: (error) => {
        this.lastConnectionError = error;
      },
      close: () => {
        if (!this.connected || this.closed) return;
        this.connected = false;
        const why = this.lastConnectionError ? `: ${this.lastConnectionError.message}` : '';
        this.fail(
          new OffsetStoreError(`lost the connection to Redis (group ${this.group}); reconnecting${why}`, {
            cause: this.lastConnectionError,
          }),
        );
      },
      ready: () => {
        this.connected = true;
        this.lastConnectionError = undefined;
      },
    });
  }

  /** The Redis hash of one topic of this group. */
  keyOf(topic: string): string {
    return offsetKeyOf(this.keyPrefix, this.group, topic);
  }

  /**
   * Connects; rejects with OffsetStoreError (and gives its own connection up) when Redis cannot be reached. The
   * app's client is connected when it is lazy and not yet connected, waited for when it is connecting, and left as
   * it is when that fails.
   */
  async load(): Promise<void> {
    if (this.connected || this.closed) return;
    try {
      if (this.ownsClient) await this.client.connect();
      else await whenClientReady(this.client);
      this.connected = true;
    } catch (error) {
      if (this.ownsClient) this.client.disconnect();
      const cause = this.lastConnectionError ?? toError(error);
      throw this.fail(
        new OffsetStoreError(`cannot connect to Redis for the offsets of group ${this.group}: ${cause.message}`, {
          cause,
        }),
      );
    }
  }

  async read(mq: MessageQueue, from: ReadOffsetFrom): Promise<number> {
    if (from !== 'store' && this.table.has(mq)) return this.table.get(mq);
    const key = this.keyOf(mq.topic);
    const field = offsetFieldOf(mq);
    let value: string | null;
    try {
      this.checkReady();
      value = await this.client.hget(key, field);
    } catch (error) {
      throw this.fail(
        new OffsetStoreError(
          `cannot read the offset of ${mqLabel(mq)} for group ${this.group} from Redis (${key} ${field}): ${toError(error).message}`,
          { key, cause: error },
        ),
      );
    }
    if (value === null) return -1;
    const offset = parseStoredOffset(value);
    if (offset === undefined) {
      throw this.fail(
        new OffsetStoreError(
          `Redis key ${key} field ${field} (the offset of ${mqLabel(mq)} for group ${this.group}) holds ${JSON.stringify(value.slice(0, 40))}, ` +
            'not an offset (a non-negative integer): correct or delete the field, or reset the group offset',
          { key, retriable: false },
        ),
      );
    }
    this.table.load(mq, offset);
    this.progress.known(mq, offset);
    return offset;
  }

  update(mq: MessageQueue, offset: number, options: { increaseOnly: boolean }): void {
    checkOffset(mq, offset, 'update');
    this.table.update(mq, offset, options.increaseOnly);
    this.progress.touched(mq, offset);
  }

  reset(mq: MessageQueue, offset: number): void {
    checkOffset(mq, offset, 'reset');
    this.table.reset(mq, offset);
    this.progress.known(mq, offset);
  }

  /** Writes the dirty offsets of these queues; concurrent calls share flushes (see PersistCoalescer). */
  persist(mqs: Iterable<MessageQueue>): Promise<void> {
    if (this.closed)
      return Promise.reject(
        new OffsetStoreError(`the Redis offset store of group ${this.group} is closed`, { retriable: false }),
      );
    return this.coalescer.request(mqs);
  }

  remove(mq: MessageQueue): void {
    this.table.remove(mq);
    this.progress.forget(mq);
  }

  /**
   * Flow control for the pull loop: `listener(true)` once more than `maxUnpersistedMessages` consumed messages have
   * progress held only in memory because flushes fail, `listener(false)` after the next successful flush.
   */
  watchBackpressure(listener: BackpressureListener): () => void {
    return this.progress.watch(listener);
  }

  /** Waits for a flush in flight, then closes the store's own connection; the app's client stays open. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.coalescer.idle();
    this.closed = true;
    if (!this.ownsClient) {
      this.unwatch();
      return;
    }
    try {
      await this.client.quit();
    } catch {
      // Not connected (Redis down): quit cannot be sent; stop reconnecting instead.
      this.client.disconnect();
    }
  }

  /** One script call with every dirty entry of these queues; nothing to write costs no round trip. */
  private async flush(mqs: readonly MessageQueue[]): Promise<void> {
    const entries = this.table.select(mqs).filter((e) => e.dirty);
    if (entries.length === 0) return;
    const written = entries.map((entry) => ({ entry, offset: entry.offset, lowering: entry.lowering }));
    const keys: string[] = [];
    const keyIndex = new Map<string, number>();
    const args: string[] = [];
    for (const { entry, offset, lowering } of written) {
      const key = this.keyOf(entry.mq.topic);
      let index = keyIndex.get(key);
      if (index === undefined) {
        index = keys.push(key);
        keyIndex.set(key, index);
      }
      args.push(String(index), offsetFieldOf(entry.mq), String(offset), lowering ? '1' : '0');
    }
    const started = Date.now();
    let reply: PersistOffsetsReply;
    try {
      this.checkReady();
      reply = parsePersistOffsetsReply(await this.client[PERSIST_OFFSETS_COMMAND](keys.length, ...keys, ...args));
    } catch (error) {
      this.progress.failed(this.table.select());
      const why =
        this.connected && this.client.status === 'ready'
          ? toError(error).message
          : 'Redis is unreachable (reconnecting with back-off); the offsets stay in memory and the first flush after the reconnect writes them';
      throw this.fail(
        new OffsetStoreError(`cannot write ${entries.length} offset(s) of group ${this.group} to Redis: ${why}`, {
          cause: error,
        }),
      );
    }
    const unreadable = new Set(reply.unreadable.map((u) => `${u.key} ${u.field}`));
    const done =
      unreadable.size === 0
        ? written
        : written.filter((w) => !unreadable.has(`${this.keyOf(w.entry.mq.topic)} ${offsetFieldOf(w.entry.mq)}`));
    this.table.markPersisted(done);
    for (const { entry, offset } of done) this.progress.known(entry.mq, offset);
    this.progress.succeeded();
    this.emitCommits(done);
    this.events.emit('offset-store.flush', {
      store: STORE,
      group: this.group,
      entries: entries.length,
      applied: reply.applied,
      skipped: reply.skipped,
      durationMs: Date.now() - started,
    });
    if (reply.unreadable.length > 0) {
      const first = reply.unreadable[0]!;
      throw this.fail(
        new OffsetStoreError(
          `Redis key ${first.key} field ${first.field} holds a value that is not an offset, so group ${this.group} cannot commit to it` +
            `${reply.unreadable.length > 1 ? ` (and ${reply.unreadable.length - 1} more field(s))` : ''}: correct or delete the field, or reset the group offset`,
          { key: first.key, retriable: false },
        ),
      );
    }
  }

  private emitCommits(done: ReadonlyArray<{ entry: OffsetEntry; offset: number }>): void {
    if (!this.events.has('consumer.commit')) return;
    for (const { entry, offset } of done)
      this.events.emit('consumer.commit', { group: this.group, mq: entry.mq, offset });
  }

  /**
   * Sends nothing while the client is not ready: the app's client may queue commands offline until it reconnects,
   * and a flush must fail at once instead, so commits stay in memory and the next flush writes them.
   */
  private checkReady(): void {
    if (this.client.status !== 'ready') throw new Error(`Redis is unreachable (ioredis status ${this.client.status})`);
  }

  /** Reports a failure on the event stream and returns it for throwing. */
  private fail(error: OffsetStoreError): OffsetStoreError {
    this.events.emit('offset-store.error', { store: STORE, group: this.group, error });
    return error;
  }
}

/** Offsets are non-negative safe integers; anything else is a caller bug and is refused before it reaches Redis. */
function checkOffset(mq: MessageQueue, offset: number, operation: string): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new OffsetStoreError(`${operation}(${mqLabel(mq)}, ${String(offset)}): an offset is a non-negative integer`, {
      retriable: false,
    });
  }
}
