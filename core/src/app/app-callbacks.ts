import type { Producer } from '../producer/producer';
import type { ConsumerRuntime } from '../consumer/consumer-runtime';
import type { BrokerCallbacks } from '../spi/transport.roles';

/** What an app answers the brokers: its groups answer for consumers, its producer for check-backs and replies. */
export function appCallbacks(
  runtimes: ReadonlyMap<string, ConsumerRuntime>,
  producer: () => Producer | undefined,
): BrokerCallbacks {
  return {
    resetOffsets: async (group, offsets) => {
      await runtimes.get(group)?.resetOffsets(offsets);
    },
    runningInfo: (group) => runtimes.get(group)?.status(),
    consumeDirectly: async (group, record, brokerName) => runtimes.get(group)?.consumeDirectly(record, brokerName),
    checkTransaction: async (group, record) => {
      const p = producer();
      return p?.transactional && p.group === group ? p.checkTransaction(record) : undefined;
    },
    receiveReply: (record) => producer()?.receiveReply(record),
  };
}
