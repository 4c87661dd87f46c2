import type { Message } from '../model/message';
import { withoutNamespace } from '../model/namespace';
import { MessageConst } from '../model/constants';
import { storeHostOf } from '../model/offset-msg-id';
import type { OutgoingRecord, SendResult } from '../spi/transport.roles';
import type { OutgoingMessage } from '../model/outgoing-message';
import type { ResolvedProducerOptions } from './producer-options';
import type { EndTransactionInvocation } from '../spi/send-hook';
import type { TransactionState } from './transaction';

/**
 * What the send hooks hear after `sendInTransaction`'s local transaction (DefaultMQProducerImpl.endTransaction's
 * doExecuteEndTransactionHook): the half message as sent, its broker from the result's offset id.
 */
export function localTransactionEnd(
  options: ResolvedProducerOptions,
  message: OutgoingMessage,
  record: OutgoingRecord,
  result: SendResult,
  state: TransactionState,
): EndTransactionInvocation {
  const keys = typeof message.keys === 'string' ? [message.keys] : (message.keys ?? []);
  return {
    group: withoutNamespace(options.namespace, options.group),
    message: { topic: message.topic, tags: message.tags || undefined, keys, properties: record.properties },
    msgId: result.msgId,
    storeHost: storeHostOf(result.offsetMsgId) ?? '',
    // Java sets the transaction id only once the half message was stored.
    transactionId: result.status === 'SEND_OK' ? record.properties[MessageConst.UNIQ_KEY] : undefined,
    state,
    fromTransactionCheck: false,
  };
}

/** What the send hooks hear when a check-back is answered (checkTransactionState, fromTransactionCheck). */
export function checkedTransactionEnd(
  options: ResolvedProducerOptions,
  message: Message,
  state: TransactionState,
): EndTransactionInvocation {
  return {
    group: withoutNamespace(options.namespace, options.group),
    message: { topic: message.topic, tags: message.tags, keys: message.keys, properties: message.properties },
    msgId: message.msgId,
    storeHost: message.storeHost,
    transactionId: message.properties[MessageConst.UNIQ_KEY] ?? message.msgId,
    state,
    fromTransactionCheck: true,
  };
}
