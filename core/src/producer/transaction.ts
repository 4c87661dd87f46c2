import type { Message } from '../model/message';
import type { SendResult } from '../spi/transport.roles';
import type { OutgoingMessage } from '../model/outgoing-message';
import type { TransactionState } from '../model/transaction-state';

export type { TransactionState } from '../model/transaction-state';

/**
 * Answers the broker's check-backs (CHECK_TRANSACTION_STATE) for half messages whose outcome it does not know yet:
 * the sender died, or its local transaction said UNKNOW. Any live producer of the group may be asked.
 *
 * Written inline, `checkLocalTransaction: (m) => ...` and `async (m) => ...` type-check as they are. An async
 * callback without a parameter that returns one literal (`async () => 'COMMIT_MESSAGE'`) does not: against
 * `TransactionState | Promise<TransactionState>`, TypeScript widens it to `Promise<string>` (microsoft/TypeScript
 * issue 30185). Wrap such a listener in {@link defineTransactionListener}, or declare the return type
 * (`async (): Promise<TransactionState> => ...`). A class that implements this interface declares it too:
 * `implements` gives its methods no contextual type, so a method that returns one literal returns `string`.
 */
export interface TransactionListener {
  checkLocalTransaction(message: Message): TransactionState | Promise<TransactionState>;
}

/**
 * Returns `listener` as it is, typed as a {@link TransactionListener}. It infers the states `checkLocalTransaction`
 * returns as literal types (a `const` type parameter), so every form of the callback type-checks, the async one
 * without a parameter included; a string that is not a state is still refused.
 *
 * @example
 * ```ts
 * const producer = await createProducer({
 *   transport,
 *   group: 'orders-tx',
 *   transactionListener: defineTransactionListener({
 *     checkLocalTransaction: async () => {
 *       await orders.flush(); // every order sent is stored once this resolves
 *       return 'COMMIT_MESSAGE';
 *     },
 *   }),
 * });
 * ```
 */
export function defineTransactionListener<const S extends TransactionState>(listener: {
  checkLocalTransaction(message: Message): S | Promise<S>;
}): TransactionListener {
  return listener;
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
