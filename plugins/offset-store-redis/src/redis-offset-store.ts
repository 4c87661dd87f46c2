import {
  OffsetStoreError,
  mqLabel,
  type EventBus,
  type MessageQueue,
  type OffsetStore,
  type OffsetWrite,
} from '@mqkit/core';
import { toError } from '@mqkit/core/internal';
import { offsetFieldOf, offsetKeyOf, parseStoredOffset } from './offset-keys';
import { PERSIST_OFFSETS_COMMAND, parsePersistOffsetsReply, type PersistOffsetsReply } from './persist-offsets.script';
import { PersistCoalescer } from './persist-coalescer';
import { createOffsetClient, withPersistCommand, type OffsetClient } from './redis-client.factory';
import type { ResolvedRedisOffsetStoreOptions } from './redis-offset-store.options';
import './redis-offset-store.events';
import { watchConnection } from './connection-events';
import { whenClientReady } from './shared-client';
import { OutageBackpressure, type BackpressureListener } from './outage-backpressure';

const STORE = 'redis';

/**
 * RocketMQ's OffsetStore on Redis: a flush sends the entries of the writes waiting for it in one script call
 * (EVALSHA), which raises a stored offset only when the new value is higher, except for explicit resets (lowering
 * entries). While Redis is unreachable writes fail at once and ConsumeProgress keeps the offsets (its table, not
 * this store, is where they wait); ioredis reconnects with back-off and the first flush after it writes the latest.
 *
 * With `options.client` the store uses the app's client and never closes it: `close()` only removes the store's
 * listeners from it.
 */
export class RedisOffsetStore implements OffsetStore {
  private readonly client: OffsetClient;
  /** False for a client the app passed in: the app owns it, and the store never closes it. */
  private readonly ownsClient: boolean;
  private readonly unwatch: () => void;
  private readonly coalescer = new PersistCoalescer((entries) => this.flush(entries));
  private readonly backpressure: OutageBackpressure;
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
    this.backpressure = new OutageBackpressure(params.options.maxUnpersistedMessages);
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

  /** HGET of the queue's field: its offset, -1 when the field is missing; an unreadable value rejects. */
  async read(mq: MessageQueue): Promise<number> {
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
    this.backpressure.stored(mq, offset);
    return offset;
  }

  /**
   * Writes these offsets; concurrent calls share flushes (see PersistCoalescer). An offset that is not a
   * non-negative integer is refused before anything is sent.
   */
  write(entries: readonly OffsetWrite[]): Promise<void> {
    if (this.closed)
      return Promise.reject(
        new OffsetStoreError(`the Redis offset store of group ${this.group} is closed`, { retriable: false }),
      );
    try {
      for (const { mq, offset } of entries) checkOffset(mq, offset);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.coalescer.request(entries);
  }

  /**
   * Flow control for the pull loop: `listener(true)` once more than `maxUnpersistedMessages` consumed messages have
   * progress held only in memory because flushes fail, `listener(false)` after the next successful flush.
   */
  watchBackpressure(listener: BackpressureListener): () => void {
    return this.backpressure.watch(listener);
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

  /** One script call with every entry; nothing to write costs no round trip. */
  private async flush(entries: readonly OffsetWrite[]): Promise<void> {
    if (entries.length === 0) return;
    const keys: string[] = [];
    const keyIndex = new Map<string, number>();
    const args: string[] = [];
    for (const { mq, offset, lowering } of entries) {
      const key = this.keyOf(mq.topic);
      let index = keyIndex.get(key);
      if (index === undefined) {
        index = keys.push(key);
        keyIndex.set(key, index);
      }
      args.push(String(index), offsetFieldOf(mq), String(offset), lowering ? '1' : '0');
    }
    const started = Date.now();
    let reply: PersistOffsetsReply;
    try {
      this.checkReady();
      reply = parsePersistOffsetsReply(await this.client[PERSIST_OFFSETS_COMMAND](keys.length, ...keys, ...args));
    } catch (error) {
      this.backpressure.failed(entries);
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
        ? entries
        : entries.filter((e) => !unreadable.has(`${this.keyOf(e.mq.topic)} ${offsetFieldOf(e.mq)}`));
    this.backpressure.succeeded(done);
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

  private emitCommits(done: readonly OffsetWrite[]): void {
    if (!this.events.has('consumer.commit')) return;
    for (const { mq, offset } of done) this.events.emit('consumer.commit', { group: this.group, mq, offset });
  }

  /**
   * Sends nothing while the client is not ready: the app's client may queue commands offline until it reconnects,
   * and a flush must fail at once instead, so the offsets stay in ConsumeProgress and its next write carries them.
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
function checkOffset(mq: MessageQueue, offset: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new OffsetStoreError(`write(${mqLabel(mq)}, ${String(offset)}): an offset is a non-negative integer`, {
      retriable: false,
    });
  }
}
