import type { SendResult } from './transport.roles';
import { toError } from '../util/deferred';
import type { OutgoingMessage } from '../model/outgoing-message';
import type { TransactionState } from '../model/transaction-state';

/** Which producer call a send is. */
export type SendKind = 'send' | 'oneway' | 'batch' | 'transaction' | 'request';

/** One producer call, as send hooks see it. */
export interface SendInvocation {
  /** The producer group, as the application named it. */
  readonly group: string;
  /** The client's RocketMQ namespace (group and topic here are without it); undefined when it has none. */
  readonly namespace: string | undefined;
  readonly kind: SendKind;
  /** The topic, as the application named it. */
  readonly topic: string;
  /** The messages of the call: one, or a batch's. */
  readonly messages: readonly OutgoingMessage[];
  /**
   * Adds a user property to message `index` before it is encoded (trace context, for one); call it before
   * `proceed()`. Reserved names are refused as on any message.
   */
  setProperty(index: number, name: string, value: string): void;
}

/**
 * Wraps every producer call (send, oneway, batch, transaction, request), as ConsumeHook wraps handler calls: one
 * around-function for spans, timing and message trace. Call `proceed()` once; it resolves with the broker's result
 * per message (none for oneway and request sends) and rejects as the call does. A throw fails the call.
 *
 * @example
 * ```ts
 * const stamp: SendHook = {
 *   name: 'stamp',
 *   around(call, proceed) {
 *     call.messages.forEach((_, i) => call.setProperty(i, 'sentBy', 'billing'));
 *     return proceed();
 *   },
 * };
 * ```
 */
export interface SendHook {
  readonly name: string;
  around(invocation: SendInvocation, proceed: () => Promise<readonly SendResult[]>): Promise<readonly SendResult[]>;
  /**
   * A transaction's outcome, just before it goes to the broker (RocketMQ's EndTransactionHook): after the local
   * transaction of `sendInTransaction`, and for every answered check-back. A throw is reported, never fatal.
   */
  endTransaction?(invocation: EndTransactionInvocation): void;
}

/** A transaction's outcome as hooks see it (RocketMQ's EndTransactionContext). */
export interface EndTransactionInvocation {
  /** The producer group, as the application named it. */
  readonly group: string;
  /** The half message: as sent by `sendInTransaction`, or as the broker stored it for a check-back. */
  readonly message: {
    /** As the application names it. */
    readonly topic: string;
    readonly tags: string | undefined;
    readonly keys: readonly string[];
    readonly properties: Readonly<Record<string, string>>;
  };
  /** The half message's id (UNIQ_KEY). */
  readonly msgId: string;
  /** `ip:port` of the broker that stored the half message. */
  readonly storeHost: string;
  /** Undefined when the half message was not stored (SEND_OK), as in Java. */
  readonly transactionId: string | undefined;
  readonly state: TransactionState;
  readonly fromTransactionCheck: boolean;
}

/** Tells every hook a transaction's outcome; a hook that throws is reported to `onError` and the others still run. */
export function runEndTransactionHooks(
  hooks: readonly SendHook[],
  invocation: EndTransactionInvocation,
  onError: (error: Error) => void,
): void {
  for (const hook of hooks) {
    if (!hook.endTransaction) continue;
    try {
      hook.endTransaction(invocation);
    } catch (error) {
      onError(toError(error));
    }
  }
}

/**
 * Runs `send` through the hooks (first hook outermost). `send` gets the messages with the properties hooks added;
 * `results` says what to hand the hooks from its outcome. No hooks: `send` runs alone, with nothing allocated.
 */
export async function runSendHooks<R>(
  hooks: readonly SendHook[],
  call: {
    readonly group: string;
    readonly namespace?: string;
    readonly kind: SendKind;
    readonly messages: readonly OutgoingMessage[];
  },
  send: (messages: readonly OutgoingMessage[]) => Promise<R>,
  results: (outcome: R) => readonly SendResult[],
): Promise<R> {
  if (hooks.length === 0) return send(call.messages);
  const added: (Record<string, string> | undefined)[] = call.messages.map(() => undefined);
  const invocation: SendInvocation = {
    group: call.group,
    namespace: call.namespace,
    kind: call.kind,
    topic: call.messages[0]?.topic ?? '',
    messages: call.messages,
    setProperty: (index, name, value) => {
      if (index < 0 || index >= added.length)
        throw new RangeError(`no message ${index} in this ${call.kind} (${added.length})`);
      const properties = added[index] ?? {};
      added[index] = properties;
      properties[name] = value;
    },
  };
  let outcome: { value: R } | undefined;
  let proceed = async (): Promise<readonly SendResult[]> => {
    const messages = call.messages.map((m, i) =>
      added[i] ? { ...m, properties: { ...m.properties, ...added[i] } } : m,
    );
    outcome = { value: await send(messages) };
    return results(outcome.value);
  };
  for (let i = hooks.length - 1; i >= 0; i--) {
    const hook = hooks[i]!;
    const next = proceed;
    proceed = () => hook.around(invocation, next);
  }
  await proceed();
  if (!outcome) throw new Error(`a send hook of ${call.group} returned without calling proceed()`);
  return outcome.value;
}
