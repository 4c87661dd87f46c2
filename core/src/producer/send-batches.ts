import { BatchSendError } from '../errors/batch-send.error';
import { MessageValidationError } from '../errors/validation.error';
import type { OutgoingMessage } from '../model/outgoing-message';
import type { SendResult } from '../spi/transport.roles';
import { buildBatches, perMessage } from './batch-split';
import { unwrapResult } from './namespaced';
import type { ProducerDeps } from './producer-deps';
import type { RecordBuilder } from './record-builder';
import type { SendPath } from './send-path';

/**
 * `Producer.sendBatch`'s sends: the list cut into batches that fit (batch-split.ts), each sent in turn through the
 * retry loop, one result per message in the list's order. Every record is built (and so refused) before the first
 * send; records of a batch are never compressed, as in RocketMQ. Once a batch was stored, a later failure rejects
 * with BatchSendError carrying the results so far, so the caller knows what not to send again.
 */
export async function sendBatches<T>(
  messages: readonly OutgoingMessage<T>[],
  deps: ProducerDeps,
  records: RecordBuilder,
  path: SendPath,
): Promise<SendResult[]> {
  const batches = buildBatches(messages, (m) => records.build(m, false), deps.options.maxMessageSize);
  if (!deps.sender.sendBatch) {
    throw new MessageValidationError(
      'batch.unsupported',
      'the transport cannot send batches (MessageSender.sendBatch)',
    );
  }
  const results: SendResult[] = [];
  for (const batch of batches) {
    let result: SendResult;
    try {
      result = unwrapResult(deps.options.namespace, await path.sendWithRetries(batch[0]!, batch));
    } catch (error) {
      if (results.length === 0) throw error;
      throw new BatchSendError(results, messages.length, error);
    }
    results.push(...perMessage(result, batch.length));
  }
  return results;
}
