import { OffsetStoreError } from '../errors/offset-store.error';
import { mqLabel, type MessageQueue } from '../model/message-queue';
import type { OffsetStore, OffsetStoreProvider, PersistOptions, ReadOffsetFrom } from '../spi/offset-store';
import type { BrokerOffsets } from '../spi/transport.roles';
import type { EventBus } from '../events/event-bus';
import { toError } from '../util/deferred';
import { OffsetTable } from '../consumer/progress/offset-table';

/**
 * How long an unchanged offset goes without being written again. Java's persistAll re-sends every owned queue's
 * offset every 5 s, changed or not; at 1,024 idle queues that is 200 requests a second of pure repetition, most of
 * an idle member's CPU and garbage (`npm run bench -- scale`). Writing changed offsets at every persist and the
 * unchanged ones at this interval keeps what the repetition is good for: a broker that lost its last offsets
 * (a crash before its consumerOffset.json flush, a master that took over) has them again within this time.
 */
export const UNCHANGED_OFFSET_REFRESH_MS = 30_000;

/**
 * RocketMQ's RemoteBrokerOffsetStore (CLUSTERING): offsets live at the broker, written through the transport's
 * BrokerOffsets role. Unlike Java, which sends updates oneway, every persist waits for the broker's answer, so
 * `persist()` on drop and stop really means "committed". A persist writes the offsets that changed since the
 * last write, and the unchanged ones every UNCHANGED_OFFSET_REFRESH_MS.
 */
export class BrokerOffsetStore implements OffsetStore {
  private readonly table = new OffsetTable();

  constructor(
    private readonly group: string,
    private readonly broker: BrokerOffsets,
    private readonly events: EventBus,
  ) {}

  async load(): Promise<void> {}

  async read(mq: MessageQueue, from: ReadOffsetFrom): Promise<number> {
    if (from !== 'store' && this.table.has(mq)) return this.table.get(mq);
    let offset: number;
    try {
      offset = await this.broker.queryConsumerOffset(this.group, mq);
    } catch (error) {
      throw new OffsetStoreError(`cannot read the offset of ${mqLabel(mq)} for group ${this.group} from the broker`, {
        key: mqLabel(mq),
        cause: error,
      });
    }
    if (offset >= 0) this.table.load(mq, offset);
    return offset;
  }

  update(mq: MessageQueue, offset: number, options: { increaseOnly: boolean }): void {
    this.table.update(mq, offset, options.increaseOnly);
  }

  reset(mq: MessageQueue, offset: number): void {
    this.table.reset(mq, offset);
  }

  async persist(mqs: Iterable<MessageQueue>, options: PersistOptions = {}): Promise<void> {
    const now = Date.now();
    const all = this.table.select(mqs);
    const entries = options.unchanged
      ? all
      : all.filter((e) => e.dirty || now - e.persistedAt >= UNCHANGED_OFFSET_REFRESH_MS);
    const failures: Error[] = [];
    await Promise.all(
      entries.map(async (entry) => {
        const { offset, lowering } = entry;
        try {
          await this.broker.commitConsumerOffset(this.group, entry.mq, offset);
          this.table.markPersisted([{ entry, offset, lowering }]);
          this.events.emit('consumer.commit', { group: this.group, mq: entry.mq, offset });
        } catch (error) {
          failures.push(toError(error));
        }
      }),
    );
    if (failures.length > 0) {
      const error = new OffsetStoreError(
        `${failures.length} offset commit(s) of group ${this.group} failed: ${failures[0]!.message}`,
        { cause: failures[0] },
      );
      this.events.emit('offset-store.error', { store: 'broker', group: this.group, error });
      throw error;
    }
  }

  remove(mq: MessageQueue): void {
    this.table.remove(mq);
  }
}

/** The default store for CLUSTERING consumers: the broker's own (needs the transport's BrokerOffsets role). */
export function brokerOffsetStore(): OffsetStoreProvider {
  return {
    name: 'broker',
    models: ['CLUSTERING'],
    create: ({ group, transport, events }) => new BrokerOffsetStore(group, transport.offsets, events),
  };
}
