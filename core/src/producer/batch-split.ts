import { MessageValidationError } from '../errors/validation.error';
import { MessageConst, isRetryTopic } from '../model/constants';
import type { OutgoingRecord, SendResult } from '../spi/transport.roles';
import type { OutgoingMessage } from '../model/outgoing-message';

/** A batch record's fixed part: total size, magic, body CRC, flag, body and properties lengths. */
const BATCH_RECORD_OVERHEAD = 22;

/**
 * Validates every message as one batch would (RocketMQ's batch rules), then splits them, in order, into batches that
 * fit `limit` once encoded (RocketMQ's ListSplitter rule, with the exact encoded size). `build` encodes one message,
 * uncompressed: RocketMQ never compresses batches.
 */
export function buildBatches<T>(
  messages: readonly OutgoingMessage<T>[],
  build: (message: OutgoingMessage<T>) => OutgoingRecord,
  limit: number,
): OutgoingRecord[][] {
  if (messages.length === 0) throw new MessageValidationError('batch.empty', 'a batch needs at least one message');
  const records = messages.map((m) => {
    if (m.delayTimeLevel && m.delayTimeLevel > 0)
      throw new MessageValidationError('batch.delay', 'TimeDelayLevel is not supported for batching');
    // The broker's batch path never schedules timers: they would be delivered at once.
    if (m.deliverTimeMs !== undefined || m.delayTimeMs !== undefined || m.delayTimeSec !== undefined)
      throw new MessageValidationError(
        'batch.timer',
        'timer messages (deliverTimeMs, delayTimeMs, delayTimeSec) are not supported for batching',
      );
    // A 5.5 broker dispatches a lite topic's messages from its single-message send path only.
    if (m.liteTopic !== undefined)
      throw new MessageValidationError(
        'batch.liteTopic',
        'lite topic messages (liteTopic) are not supported for batching',
      );
    if (isRetryTopic(m.topic))
      throw new MessageValidationError('batch.retry-topic', 'Retry Group is not supported for batching');
    return build(m);
  });
  const first = records[0]!;
  const batches: OutgoingRecord[][] = [];
  let current: OutgoingRecord[] = [];
  let size = 0;
  for (const r of records) {
    if (r.topic !== first.topic)
      throw new MessageValidationError('batch.topic', 'The topic of the messages in one batch should be the same');
    if (r.properties[MessageConst.WAIT] !== first.properties[MessageConst.WAIT])
      throw new MessageValidationError('batch.wait', 'The waitStoreMsgOK of the messages in one batch should the same');
    const encoded = BATCH_RECORD_OVERHEAD + r.body.length + propertiesLength(r.properties);
    if (encoded > limit)
      throw new MessageValidationError(
        'batch.size',
        `a message of the batch is ${encoded} bytes encoded, over the max message size ${limit}`,
      );
    if (size + encoded > limit) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(r);
    size += encoded;
  }
  batches.push(current);
  return batches;
}

/** A batch's result, one per message: RocketMQ joins the ids with commas and gives the first queue offset. */
export function perMessage(result: SendResult, count: number): SendResult[] {
  const ids = result.msgId.split(',');
  const offsetIds = result.offsetMsgId.split(',');
  return Array.from({ length: count }, (_, i) => ({
    ...result,
    msgId: ids[i] ?? '',
    offsetMsgId: offsetIds[i] ?? '',
    queueOffset: result.queueOffset >= 0 ? result.queueOffset + i : result.queueOffset,
  }));
}

function propertiesLength(properties: Readonly<Record<string, string>>): number {
  let n = 0;
  for (const k in properties) n += Buffer.byteLength(k) + Buffer.byteLength(properties[k]!) + 2;
  return n;
}
