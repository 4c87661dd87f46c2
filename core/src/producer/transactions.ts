import { jsonCodec } from '../definition/json.codec';
import { MessageValidationError } from '../errors/validation.error';
import { MessageConst } from '../model/constants';
import { ConsumedMessage } from '../model/consumed-message';
import type { MessageRecord } from '../model/message';
import type { OutgoingMessage } from '../model/outgoing-message';
import { runEndTransactionHooks, type EndTransactionInvocation } from '../spi/send-hook';
import type { OutgoingRecord } from '../spi/transport.roles';
import { toError } from '../util/deferred';
import { checkedTransactionEnd, localTransactionEnd } from './end-transaction';
import { isDelayed } from './message-validator';
import { unwrapResult } from './namespaced';
import type { ProducerDeps } from './producer-deps';
import type { RecordBuilder } from './record-builder';
import type { SendPath } from './send-path';
import {
  TRANSACTION_STATES,
  type LocalTransaction,
  type TransactionSendResult,
  type TransactionState,
} from './transaction';

/** MessageSysFlag.TRANSACTION_PREPARED_TYPE: a half message. */
const TRANSACTION_PREPARED_TYPE = 0x4;

/**
 * The producer's half of RocketMQ's transactional messages (TransactionMQProducer): the half message, the local
 * transaction and the outcome sent to the broker, then the answers to the broker's check-backs through the group's
 * `transactionListener`. Both tell the send hooks how the transaction ended (message trace's EndTransaction).
 */
export class Transactions {
  readonly #deps: ProducerDeps;
  readonly #path: SendPath;
  readonly #records: RecordBuilder;

  constructor(deps: ProducerDeps, path: SendPath, records: RecordBuilder) {
    this.#deps = deps;
    this.#path = path;
    this.#records = records;
  }

  /** sendMessageInTransaction: stores the half message, runs `local` on SEND_OK, and ends the transaction. */
  async send<T>(message: OutgoingMessage<T>, local: LocalTransaction<T>): Promise<TransactionSendResult> {
    const { sender, options, events } = this.#deps;
    if (!sender.endTransaction)
      throw new MessageValidationError(
        'transaction.unsupported',
        'the transport cannot end transactions (MessageSender.endTransaction)',
      );
    if (!options.transactionListener)
      throw new MessageValidationError(
        'transaction.listener',
        "a transactional send needs the producer option transactionListener (for the broker's check-backs)",
      );
    if (isDelayed(message)) {
      throw new MessageValidationError(
        'transaction.delay',
        'a transactional message cannot be delayed (delayTimeLevel or a timer)',
      );
    }
    // The broker's commit re-stores the half message without the lite dispatch a plain send gets.
    if (message.liteTopic !== undefined)
      throw new MessageValidationError('transaction.liteTopic', 'a transactional message cannot have a liteTopic');
    const built = this.#records.build(message);
    const properties: Record<string, string> = {
      ...built.properties,
      [MessageConst.TRANSACTION_PREPARED]: 'true',
      [MessageConst.PRODUCER_GROUP]: options.group,
    };
    const record: OutgoingRecord = { ...built, sysFlag: built.sysFlag | TRANSACTION_PREPARED_TYPE, properties };
    const wire = await this.#path.sendWithRetries(record);
    const sendResult = unwrapResult(options.namespace, wire);
    let state: TransactionState = 'ROLLBACK_MESSAGE';
    if (wire.status === 'SEND_OK') {
      try {
        state = await local(message, sendResult);
        if (!TRANSACTION_STATES.includes(state)) state = 'UNKNOW';
      } catch {
        state = 'UNKNOW';
      }
    }
    this.#ended(localTransactionEnd(options, message, record, wire, state));
    try {
      await sender.endTransaction({
        producerGroup: options.group,
        result: wire,
        state,
        transactionId: record.properties[MessageConst.UNIQ_KEY]!,
      });
    } catch (error) {
      // The local transaction has run: rejecting would invite a second one. As in Java, the outcome is reported and
      // the broker's check-back settles the half message.
      events.emit('producer.error', {
        group: options.group,
        topic: message.topic,
        error: toError(error),
        attempt: 1,
      });
    }
    return { sendResult, state };
  }

  /** A check-back: the group's listener on the half message; a throw or an unknown answer is UNKNOW. */
  async check(record: MessageRecord): Promise<TransactionState> {
    const { options } = this.#deps;
    const listener = options.transactionListener;
    if (!listener) return 'UNKNOW';
    const mq = { topic: record.topic, brokerName: record.brokerName, queueId: record.queueId };
    const message = new ConsumedMessage(record, mq, options.codec ?? jsonCodec, 0, options.namespace);
    let state: TransactionState = 'UNKNOW';
    try {
      const answer = await listener.checkLocalTransaction(message);
      if (TRANSACTION_STATES.includes(answer)) state = answer;
    } catch {
      state = 'UNKNOW';
    }
    this.#ended(checkedTransactionEnd(options, message, state));
    return state;
  }

  /** The send hooks' endTransaction (message trace's EndTransaction record); a hook's throw is a producer.error. */
  #ended(invocation: EndTransactionInvocation): void {
    const { hooks = [], events, options } = this.#deps;
    runEndTransactionHooks(hooks, invocation, (error) =>
      events.emit('producer.error', { group: options.group, topic: invocation.message.topic, error, attempt: 0 }),
    );
  }
}
