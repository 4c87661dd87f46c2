import type { Message } from '../model/message';
import type { SendResult } from '../spi/transport.roles';
import type { OutgoingMessage } from './outgoing-message';

/** A local transaction's outcome, by RocketMQ's LocalTransactionState names (UNKNOW is Java's spelling). */
export type TransactionState = 'COMMIT_MESSAGE' | 'ROLLBACK_MESSAGE' | 'UNKNOW';

/**
 * Answers the broker's check-backs (CHECK_TRANSACTION_STATE) for half messages whose outcome it does not know yet:
 * the sender died, or its local transaction said UNKNOW. Any live producer of the group may be asked.
 */
export interface TransactionListener {
  checkLocalTransaction(message: Message): TransactionState | Promise<TransactionState>;
}

/**
 * The local transaction run after the half message is stored; a throw counts as UNKNOW. `S` is the states it
 * returns: `Producer.sendInTransaction` infers it from the callback, so that an async callback's
 * `return 'COMMIT_MESSAGE'` keeps its literal type (against `TransactionState | Promise<TransactionState>` alone,
 * TypeScript widens it to `Promise<string>` and refuses the callback).
 */
export type LocalTransaction<T, S extends TransactionState = TransactionState> = (
  message: OutgoingMessage<T>,
  sendResult: SendResult,
) => S | Promise<S>;

export interface TransactionSendResult {
  readonly sendResult: SendResult;
  readonly state: TransactionState;
}

export const TRANSACTION_STATES: readonly TransactionState[] = ['COMMIT_MESSAGE', 'ROLLBACK_MESSAGE', 'UNKNOW'];
