import { isRetryTopic } from '../model/constants';
import type { MessageQueue } from '../model/message-queue';
import type { ResolvedGroupOptions } from '../options/consumer-options';
import { parseConsumeTimestamp } from '../options/option-checks';
import type { OffsetStore } from '../spi/offset-store';
import type { BrokerOffsets } from '../spi/transport.roles';

/**
 * RocketMQ's computePullFromWhere for a newly owned queue: the stored offset when there is one; otherwise
 * consumeFromWhere decides (LAST: the max offset, 0 for the retry topic; FIRST: 0; TIMESTAMP: the first message
 * stored at or after consumeTimestamp, the max offset for the retry topic). Rejects when the store cannot answer.
 * `consumed` is what this member itself consumed of the queue before (-1 if nothing known): a store that holds
 * less, or nothing (a broker that crashed before it wrote its offsets), does not move the queue back.
 * `routedLate`: the queue was not in its topic's route when this member first looked (the topic created after the
 * consumer started, or grown since). It holds nothing sent before the subscription, so LAST reads it from 0 too:
 * its max offset would skip what was sent between its creation and this lookup (Java's broker answers 0 for such a
 * young queue; mqkit asks with setZeroIfNotFound=false and decides here).
 */
export async function computeStartOffset(
  mq: MessageQueue,
  options: ResolvedGroupOptions,
  store: OffsetStore,
  broker: BrokerOffsets,
  consumed = -1,
  routedLate = false,
): Promise<number> {
  const stored = await store.read(mq, 'store');
  if (consumed > stored) return consumed;
  if (stored >= 0) return stored;
  const retry = isRetryTopic(mq.topic);
  switch (options.consumeFromWhere) {
    case 'CONSUME_FROM_FIRST_OFFSET':
      return 0;
    case 'CONSUME_FROM_TIMESTAMP':
      return retry ? broker.maxOffset(mq) : broker.searchOffset(mq, parseConsumeTimestamp(options.consumeTimestamp)!);
    default:
      return retry || routedLate ? 0 : broker.maxOffset(mq);
  }
}
