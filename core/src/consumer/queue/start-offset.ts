import { isRetryTopic } from '../../model/constants';
import type { MessageQueue } from '../../model/message-queue';
import type { ResolvedGroupOptions } from '../../options/consumer-options';
import { parseConsumeTimestamp } from '../../options/option-checks';
import type { BrokerOffsets } from '../../spi/transport.roles';

/**
 * How far before the last lookup that lacked a late queue its reading starts: the broker stamps messages with its
 * own clock, and a producer may have had the route (from another name server) a little before this member did.
 */
export const LATE_QUEUE_MARGIN_MS = 30_000;

/**
 * RocketMQ's computePullFromWhere for a newly owned queue: the stored offset when there is one (read through
 * ConsumeProgress, `stored`, which keeps what it read); otherwise
 * consumeFromWhere decides (LAST: the max offset, 0 for the retry topic; FIRST: 0; TIMESTAMP: the first message
 * stored at or after consumeTimestamp, the max offset for the retry topic). Rejects when the store cannot answer.
 * `consumed` is what this member itself consumed of the queue before (-1 if nothing known): a store that holds
 * less, or nothing (a broker that crashed before it wrote its offsets), does not move the queue back.
 * `lateSince`: the queue was not in its topic's route when this member first looked (the topic created after the
 * consumer started, or grown since), and this is when the last lookup that lacked it ran. LAST then reads it from
 * the first message stored after that moment (less LATE_QUEUE_MARGIN_MS): for a new topic or queue that is all of
 * it (Java's broker answers 0 for such a young queue; mqkit asks with setZeroIfNotFound=false and decides here),
 * while a queue that was only out of the route then (its broker down or not registered at the first lookup) is not
 * read from its start, history and all.
 */
export async function computeStartOffset(
  mq: MessageQueue,
  options: ResolvedGroupOptions,
  stored: { read(mq: MessageQueue): Promise<number> },
  broker: BrokerOffsets,
  consumed = -1,
  lateSince?: number,
): Promise<number> {
  const offset = await stored.read(mq);
  if (consumed > offset) return consumed;
  if (offset >= 0) return offset;
  const retry = isRetryTopic(mq.topic);
  switch (options.consumeFromWhere) {
    case 'CONSUME_FROM_FIRST_OFFSET':
      return 0;
    case 'CONSUME_FROM_TIMESTAMP':
      return retry ? broker.maxOffset(mq) : broker.searchOffset(mq, parseConsumeTimestamp(options.consumeTimestamp)!);
    default:
      if (retry) return 0;
      return lateSince === undefined ? broker.maxOffset(mq) : broker.searchOffset(mq, lateSince - LATE_QUEUE_MARGIN_MS);
  }
}
