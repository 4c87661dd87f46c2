import {
  LEGACY_OFFSET_STORE_WARNING,
  mqKey,
  type LegacyOffsetStore,
  type MessageQueue,
  type OffsetStoreProvider,
  type PersistOptions,
  type ReadOffsetFrom,
} from '@mqkit/core';
import { Deliveries, describeOffsetStoreContract, uniqueName, waitFor } from '@mqkit/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

/**
 * A third-party store written against the former OffsetStore interface, as one would have been before the SPI
 * became read and write: its own in-memory table, persisted into a map shared by its members (its "database"),
 * where an ordinary commit overwrites.
 */
class MapLegacyStore implements LegacyOffsetStore {
  private readonly table = new Map<string, { mq: MessageQueue; offset: number }>();

  constructor(private readonly db: Map<string, number>) {}

  async load(): Promise<void> {}
  async read(mq: MessageQueue, from: ReadOffsetFrom): Promise<number> {
    const memory = this.table.get(mqKey(mq));
    if (from === 'memory-then-store' && memory) return memory.offset;
    return this.db.get(mqKey(mq)) ?? -1;
  }
  update(mq: MessageQueue, offset: number, options: { increaseOnly: boolean }): void {
    const entry = this.table.get(mqKey(mq));
    if (!entry || !options.increaseOnly || offset > entry.offset) this.table.set(mqKey(mq), { mq, offset });
  }
  reset(mq: MessageQueue, offset: number): void {
    this.table.set(mqKey(mq), { mq, offset });
  }
  async persist(mqs: Iterable<MessageQueue>, _options?: PersistOptions): Promise<void> {
    for (const mq of mqs) {
      const entry = this.table.get(mqKey(mq));
      if (entry) this.db.set(mqKey(mq), entry.offset);
    }
  }
  remove(mq: MessageQueue): void {
    this.table.delete(mqKey(mq));
  }
}

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
beforeAll(() => process.on('warning', onWarning));
afterAll(() => process.off('warning', onWarning));

let harness: Harness | undefined;
afterEach(async () => harness?.close());

describe('a store written against the former OffsetStore interface', () => {
  it('serves a consumer app through the adapter, with one DeprecationWarning for the process', async () => {
    harness = new Harness();
    const [topic, group] = [uniqueName('T'), uniqueName('g')];
    harness.broker.createTopic({ topic, queues: 4 });
    const db = new Map<string, number>();
    const legacy: OffsetStoreProvider = {
      name: 'map-legacy',
      models: ['CLUSTERING'],
      create: () => new MapLegacyStore(db),
    };
    const seen = new Deliveries();
    const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) =>
      seen.record(m.payload.seq),
    );
    const first = await harness.app([Handler], { offsetStore: legacy });
    await harness.produce(topic, 400);
    await waitFor(() => seen.unique === 400);
    await first.stop();
    // The final commits of the stop reached the legacy store's "database": every message, once.
    expect([...db.values()].reduce((sum, offset) => sum + offset, 0)).toBe(400);
    // A second app on the same store starts where the first stopped.
    await harness.produce(topic, 100, { from: 400 });
    await harness.app([Handler], { offsetStore: legacy });
    await waitFor(() => seen.unique === 500);
    expect(seen.duplicates).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    const deprecations = warnings.filter((w) => (w as { code?: string }).code === LEGACY_OFFSET_STORE_WARNING);
    expect(deprecations).toHaveLength(1);
    expect(deprecations[0]).toMatchObject({ name: 'DeprecationWarning' });
    expect(deprecations[0]!.message).toContain('"map-legacy"');
  });
});

// The contract suite runs a legacy store through the same adapter.
describe('legacy store contract', () =>
  describeOffsetStoreContract('legacy (adapted)', {
    // The map overwrites on every commit, as RocketMQ's broker does.
    keepsMaximum: false,
    holdsBadData: false,
    backend: () => {
      const db = new Map<string, number>();
      return { group: uniqueName('contract'), createStore: () => new MapLegacyStore(db) };
    },
  }));
