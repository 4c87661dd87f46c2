import { isRetryTopic } from '../../model/constants';
import { ConsumedMessage } from '../../model/consumed-message';
import type { MessageRecord } from '../../model/message';
import type { Codec } from '../../spi/codec';
import type { ConsumeProgress } from '../progress/consume-progress';
import type { ByteBudget } from './byte-budget';
import type { ProcessQueue } from './process-queue';

/**
 * The one intake of pulled records: puts them into their queue and appends the accepted ones (a retried pull's
 * repeats are not) to `into`, wrapped with their codec; returns their bytes. An ordinary queue's records share one
 * codec, looked up once per batch; a retry queue's records each carry their original topic.
 */
export function intake(
  pq: ProcessQueue,
  records: readonly MessageRecord[],
  into: ConsumedMessage[],
  codecOf: (pq: ProcessQueue, record: MessageRecord) => Codec,
  namespace: string | undefined,
): number {
  if (records.length === 0) return 0;
  const { mq } = pq;
  const shared = isRetryTopic(mq.topic) ? undefined : codecOf(pq, records[0]!);
  return pq.put(records, (record, seq) =>
    into.push(new ConsumedMessage(record, mq, shared ?? codecOf(pq, record), seq, namespace)),
  );
}

/**
 * Both ends of a queue's cache, each in one place (docs/architecture.md#the-data-path-drawn-once): `intake` puts
 * pulled records into their ProcessQueue and wraps the accepted ones for the consumer (the pull consumer's buffer
 * calls the same `intake` function with its codec); `finish` takes finished
 * messages out, gives their bytes back to the app's budget and moves the committable offset. The consume services,
 * the pull consumer's buffer and the table use these and never do the steps themselves.
 */
export class QueueWork {
  constructor(
    private readonly budget: ByteBudget,
    private readonly progress: ConsumeProgress,
    /** The payload codec of a record of this queue (a retry queue's records differ by their original topic). */
    private readonly codecOf: (pq: ProcessQueue, record: MessageRecord) => Codec,
    /** RocketMQ's namespace of the client: messages show their topic without it. */
    private readonly namespace: string | undefined,
  ) {}

  /** The intake (see `intake` below) with this group's codecs and namespace. */
  intake(pq: ProcessQueue, records: readonly MessageRecord[], into: ConsumedMessage[]): number {
    return intake(pq, records, into, this.codecOf, this.namespace);
  }

  /**
   * Messages items[start, end) of `pq` finished: they leave its cache, their bytes go back to the budget, and the
   * committable offset follows the smallest one still in flight. Nothing happens for a dropped queue: its cache
   * is gone, and the next owner consumes from the committed offset.
   */
  finish(pq: ProcessQueue, items: ArrayLike<{ readonly seq: number }>, start = 0, end = items.length): void {
    if (pq.dropped) return;
    const bytes = end - start === 1 ? pq.removeOne(items[start]!.seq) : pq.removeItems(items, start, end);
    this.budget.release(bytes);
    this.progress.advance(pq);
  }

  /**
   * A queue leaves its table: with `advance` (a release) its offset first follows what finished, then it is
   * dropped (results of its calls no longer count) and its cache's bytes go back to the budget.
   */
  close(pq: ProcessQueue, advance: boolean): void {
    if (advance && !pq.dropped) this.progress.advance(pq);
    pq.drop();
    this.budget.release(pq.clear());
  }
}
