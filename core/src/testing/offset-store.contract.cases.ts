import assert from 'node:assert/strict';
import { OffsetStoreError } from '../errors/offset-store.error';
import { retryTopicOf } from '../model/constants';
import { mqLabel, type MessageQueue } from '../model/message-queue';
import type { OffsetStore, OffsetWrite } from '../spi/offset-store';

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
/** Ordinary progress, and an explicit reset. */
const at = (q: MessageQueue, offset: number): OffsetWrite => ({ mq: q, offset, lowering: false });
const lowered = (q: MessageQueue, offset: number): OffsetWrite => ({ mq: q, offset, lowering: true });

async function expectOffset(store: OffsetStore, q: MessageQueue, expected: number): Promise<void> {
  assert.equal(await store.read(q), expected, `read(${mqLabel(q)})`);
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
 * The cases every OffsetStore passes: it reads what was stored, writes what it is handed, lowers only on an explicit
 * reset (and, where it keeps the maximum, never on an ordinary write), and names bad stored data.
 */
export const OFFSET_STORE_CASES: readonly OffsetStoreCase[] = [
  {
    name: 'an unknown queue reads -1',
    async run({ member }) {
      const store = await member();
      await expectOffset(store, mq('T', 0), -1);
    },
  },
  {
    name: 'a write then a new instance reads every queue back (topics, retry topic, brokers)',
    async run({ group, member }) {
      const first = await member();
      const queues = [mq('T', 0), mq('T', 1, 'broker-b'), mq('U', 3), mq(retryTopicOf(group), 0)];
      await first.write(queues.map((q, i) => at(q, 100 + i * 7)));
      await expectOffset(first, mq('T', 0), 100);
      const second = await member();
      for (const [i, q] of queues.entries()) await expectOffset(second, q, 100 + i * 7);
    },
  },
  {
    name: 'a later write stores the progress made since the previous one',
    async run({ member }) {
      const store = await member();
      const q = mq('T', 0);
      await store.write([at(q, 5)]);
      await store.write([at(q, 9)]);
      await expectOffset(await member(), q, 9);
    },
  },
  {
    name: 'writes of one member issued without waiting store the last one',
    async run({ member }) {
      const store = await member();
      const q = mq('T', 0);
      const writes: Promise<void>[] = [];
      for (let offset = 1; offset <= 20; offset++) writes.push(store.write([at(q, offset)]));
      await Promise.all(writes);
      await expectOffset(await member(), q, 20);
    },
  },
  {
    name: 'a lowering write moves a stored offset back, and progress after it is stored from there',
    async run({ member }) {
      const store = await member();
      const q = mq('T', 0);
      await store.write([at(q, 100), at(mq('T', 1), 30)]);
      await store.write([lowered(q, 40)]);
      await expectOffset(await member(), q, 40);
      await store.write([at(q, 45)]);
      await expectOffset(await member(), q, 45);
      await expectOffset(await member(), mq('T', 1), 30);
    },
  },
  {
    name: 'writing nothing resolves and stores nothing',
    async run({ member }) {
      const store = await member();
      await store.write([]);
      await expectOffset(await member(), mq('T', 5), -1);
    },
  },
  {
    name: "a stale member's late, lower write cannot lower an offset",
    requires: 'keepsMaximum',
    async run({ member }) {
      const owner = await member();
      const stale = await member();
      const q = mq('T', 0);
      await owner.write([at(q, 500)]);
      await stale.write([at(q, 300)]);
      await expectOffset(await member(), q, 500);
      await stale.write([at(q, 450)]);
      await expectOffset(await member(), q, 500);
    },
  },
  {
    name: 'two members writing concurrently keep the maximum, and the stored value never goes back',
    requires: 'keepsMaximum',
    async run({ member }) {
      const [a, b, observer] = [await member(), await member(), await member()];
      const queues = [mq('T', 0), mq('T', 1), mq('T', 2, 'broker-b')];
      const random = lcg(20240611);
      const highest = new Map<MessageQueue, number>(queues.map((q) => [q, -1]));
      for (let round = 0; round < 15; round++) {
        const batches = [a, b].map(() =>
          queues.map((q) => {
            const offset = Math.floor(random() * 10_000);
            highest.set(q, Math.max(highest.get(q)!, offset));
            return at(q, offset);
          }),
        );
        const before = await Promise.all(queues.map((q) => observer.read(q)));
        await Promise.all([a.write(batches[0]!), b.write(batches[1]!)]);
        for (const [i, q] of queues.entries()) {
          const now = await observer.read(q);
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
      await assert.rejects(store.read(q), check);
      await expectOffset(store, mq('T', 5), -1);
    },
  },
];
