import assert from 'node:assert/strict';
import { OffsetStoreError } from '../errors/offset-store.error';
import { retryTopicOf } from '../model/constants';
import { mqLabel, type MessageQueue } from '../model/message-queue';
import type { OffsetStore } from '../spi/offset-store';

/** What one contract case gets: members of one group on one fresh backend. */
export interface OffsetStoreCaseContext {
  readonly group: string;
  /** A new, loaded store instance: another member of the group (or the same member after a restart). */
  member(): Promise<OffsetStore>;
  /** Writes data the store cannot read where it keeps this queue's offset (only for stores that can hold it). */
  corrupt(mq: MessageQueue): Promise<void>;
}

export interface OffsetStoreCase {
  readonly name: string;
  /** `keepsMaximum`: needs a store that never lowers on an ordinary commit; `corrupt`: needs bad-data injection. */
  readonly requires?: 'keepsMaximum' | 'corrupt';
  run(ctx: OffsetStoreCaseContext): Promise<void>;
}

const mq = (topic: string, queueId: number, brokerName = 'broker-a'): MessageQueue => ({ topic, brokerName, queueId });
const inc = { increaseOnly: true } as const;
const set = { increaseOnly: false } as const;

async function expectOffset(
  store: OffsetStore,
  q: MessageQueue,
  from: 'store' | 'memory-then-store',
  expected: number,
): Promise<void> {
  assert.equal(await store.read(q, from), expected, `read(${mqLabel(q)}, '${from}')`);
}

/** A small deterministic generator, so a failing run can be repeated exactly. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * The cases every OffsetStore passes (RocketMQ's OffsetStore semantics, docs/rocketmq-consumer-model.md#offset-stores).
 */
export const OFFSET_STORE_CASES: readonly OffsetStoreCase[] = [
  {
    name: 'an unknown queue reads -1 from the store and from memory-then-store',
    async run({ member }) {
      const store = await member();
      for (const from of ['store', 'memory-then-store'] as const) await expectOffset(store, mq('T', 0), from, -1);
    },
  },
  {
    name: 'read after update: memory-then-store sees an update at once, before any persist',
    async run({ member }) {
      const store = await member();
      store.update(mq('T', 1), 42, set);
      await expectOffset(store, mq('T', 1), 'memory-then-store', 42);
      await expectOffset(store, mq('T', 1), 'store', -1);
      await expectOffset(store, mq('T', 2), 'memory-then-store', -1);
    },
  },
  {
    name: 'increase-only updates never lower the in-memory offset; plain updates overwrite it',
    async run({ member }) {
      const store = await member();
      const q = mq('T', 0);
      store.update(q, 10, inc);
      store.update(q, 7, inc);
      await expectOffset(store, q, 'memory-then-store', 10);
      store.update(q, 12, inc);
      await expectOffset(store, q, 'memory-then-store', 12);
      store.update(q, 3, set);
      await expectOffset(store, q, 'memory-then-store', 3);
    },
  },
  {
    name: 'persist then a new instance reads every queue back (topics, retry topic, brokers)',
    async run({ group, member }) {
      const first = await member();
      const queues = [mq('T', 0), mq('T', 1, 'broker-b'), mq('U', 3), mq(retryTopicOf(group), 0)];
      for (const [i, q] of queues.entries()) first.update(q, 100 + i * 7, set);
      await first.persist(queues);
      const second = await member();
      for (const [i, q] of queues.entries()) await expectOffset(second, q, 'store', 100 + i * 7);
      for (const [i, q] of queues.entries()) await expectOffset(second, q, 'memory-then-store', 100 + i * 7);
    },
  },
  {
    name: 'a later persist writes the progress made since the previous one',
    async run({ member }) {
      const store = await member();
      const q = mq('T', 0);
      store.update(q, 5, inc);
      await store.persist([q]);
      store.update(q, 9, inc);
      await store.persist([q]);
      await expectOffset(await member(), q, 'store', 9);
    },
  },
  {
    name: 'reset lowers a persisted offset, and progress after the reset is persisted from there',
    async run({ member }) {
      const store = await member();
      const q = mq('T', 0);
      store.update(q, 100, inc);
      await store.persist([q]);
      store.reset(q, 40);
      await expectOffset(store, q, 'memory-then-store', 40);
      await store.persist([q]);
      await expectOffset(await member(), q, 'store', 40);
      store.reset(q, 20);
      store.update(q, 25, inc);
      await store.persist([q]);
      await expectOffset(await member(), q, 'store', 25);
    },
  },
  {
    name: 'remove forgets the in-memory entry and keeps the stored value',
    async run({ member }) {
      const store = await member();
      const q = mq('T', 0);
      store.update(q, 8, inc);
      await store.persist([q]);
      store.update(q, 12, inc);
      store.remove(q);
      // The unpersisted 12 is gone with the entry: memory-then-store falls through to the stored 8.
      await expectOffset(store, q, 'memory-then-store', 8);
      await expectOffset(store, q, 'store', 8);
    },
  },
  {
    name: 'read from the store replaces the in-memory value',
    async run({ member }) {
      const a = await member();
      const b = await member();
      const q = mq('T', 0);
      a.update(q, 50, inc);
      await a.persist([q]);
      b.update(q, 10, set);
      await expectOffset(b, q, 'store', 50);
      await expectOffset(b, q, 'memory-then-store', 50);
    },
  },
  {
    name: 'persisting nothing, or queues without an in-memory entry, resolves and writes nothing',
    async run({ member }) {
      const store = await member();
      await store.persist([]);
      await store.persist([mq('T', 5)]);
      await expectOffset(await member(), mq('T', 5), 'store', -1);
    },
  },
  {
    name: "a stale member's late, lower commit cannot lower an offset",
    requires: 'keepsMaximum',
    async run({ member }) {
      const owner = await member();
      const stale = await member();
      const q = mq('T', 0);
      stale.update(q, 300, inc);
      owner.update(q, 500, inc);
      await owner.persist([q]);
      await stale.persist([q]);
      await expectOffset(await member(), q, 'store', 500);
      stale.update(q, 450, set);
      await stale.persist([q]);
      await expectOffset(await member(), q, 'store', 500);
    },
  },
  {
    name: 'two members updating and persisting concurrently keep the maximum, and the stored value never goes back',
    requires: 'keepsMaximum',
    async run({ member }) {
      const [a, b, observer] = [await member(), await member(), await member()];
      const queues = [mq('T', 0), mq('T', 1), mq('T', 2, 'broker-b')];
      const random = lcg(20240611);
      const highest = new Map<MessageQueue, number>(queues.map((q) => [q, -1]));
      for (let round = 0; round < 15; round++) {
        for (const q of queues) {
          for (const store of [a, b]) {
            const offset = Math.floor(random() * 10_000);
            store.update(q, offset, inc);
            highest.set(q, Math.max(highest.get(q)!, offset));
          }
        }
        const before = await Promise.all(queues.map((q) => observer.read(q, 'store')));
        await Promise.all([a.persist(queues), b.persist(queues)]);
        for (const [i, q] of queues.entries()) {
          const now = await observer.read(q, 'store');
          assert.ok(now >= before[i]!, `round ${round}: ${mqLabel(q)} went back from ${before[i]} to ${now}`);
          assert.equal(
            now,
            highest.get(q),
            `round ${round}: ${mqLabel(q)} holds ${now}, the members' maximum is ${highest.get(q)}`,
          );
        }
      }
    },
  },
  {
    name: 'bad stored data makes load or read reject with an OffsetStoreError that names where it read',
    requires: 'corrupt',
    async run({ member, corrupt }) {
      const q = mq('T', 4);
      await corrupt(q);
      const check = (error: unknown): true => {
        assert.ok(error instanceof OffsetStoreError, `expected an OffsetStoreError, got ${String(error)}`);
        assert.ok(
          typeof error.key === 'string' && error.key.length > 0,
          'OffsetStoreError.key names the key or file read',
        );
        assert.ok(error.message.includes(error.key), `the message names the key: ${error.message}`);
        return true;
      };
      // A store that reads everything at load (a file) fails there, before consuming anything; a store that reads
      // per queue (Redis) fails that read and still serves the other queues.
      let store: OffsetStore;
      try {
        store = await member();
      } catch (error) {
        check(error);
        return;
      }
      await assert.rejects(store.read(q, 'store'), check);
      await expectOffset(store, mq('T', 5), 'store', -1);
    },
  },
];
