import { OffsetStoreError } from '../errors/offset-store.error';
import { mqLabel, type MessageQueue } from '../model/message-queue';
import type { OffsetStore, OffsetStoreProvider, OffsetWrite } from '../spi/offset-store';
import type { BrokerOffsets } from '../spi/transport.roles';
import type { EventBus } from '../events/event-bus';
import { toError } from '../util/deferred';

/**
 * RocketMQ's RemoteBrokerOffsetStore (CLUSTERING): offsets live at the broker, written through the transport's
 * BrokerOffsets role. Unlike Java, which sends updates oneway, every write waits for the broker's answer, so a
 * write on drop and stop really means "committed". The broker overwrites what it holds (ConsumerOffsetManager
 * .commitOffset), so a lowering entry needs nothing special, and an ordinary one is not kept at a maximum either.
 * Which offsets are worth sending (changed ones, unchanged ones now and then) is ConsumeProgress's decision.
 */
export class BrokerOffsetStore implements OffsetStore {
  constructor(
    private readonly group: string,
    private readonly broker: BrokerOffsets,
    private readonly events: EventBus,
  ) {}

  async load(): Promise<void> {}

  /** QUERY_CONSUMER_OFFSET: the broker's offset of this queue, -1 when it has none. */
  async read(mq: MessageQueue): Promise<number> {
    try {
      return await this.broker.queryConsumerOffset(this.group, mq);
    } catch (error) {
      throw new OffsetStoreError(`cannot read the offset of ${mqLabel(mq)} for group ${this.group} from the broker`, {
        key: mqLabel(mq),
        cause: error,
      });
    }
  }

  /** One UPDATE_CONSUMER_OFFSET per entry, all at once; rejects after all answered when any failed. */
  async write(entries: readonly OffsetWrite[]): Promise<void> {
    const failures: Error[] = [];
    await Promise.all(
      entries.map(async ({ mq, offset }) => {
        try {
          await this.broker.commitConsumerOffset(this.group, mq, offset);
          this.events.emit('consumer.commit', { group: this.group, mq, offset });
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
}

/** The default store for CLUSTERING consumers: the broker's own (needs the transport's BrokerOffsets role). */
export function brokerOffsetStore(): OffsetStoreProvider {
  return {
    name: 'broker',
    models: ['CLUSTERING'],
    create: ({ group, transport, events }) => new BrokerOffsetStore(group, transport.offsets, events),
  };
}
