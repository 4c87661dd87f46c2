import type { MessageModel } from '../model/constants';
import type { Message } from '../model/message';
import type { MessageQueue } from '../model/message-queue';
import type { ConsumeContext } from './consume-context';

/** One handler call, as hooks see it. */
export interface ConsumeInvocation {
  /** The group as the broker knows it (wrapped in `namespace`). */
  readonly group: string;
  /** The client's RocketMQ namespace; undefined when it has none. */
  readonly namespace: string | undefined;
  readonly messageModel: MessageModel;
  readonly mq: MessageQueue;
  readonly messages: readonly Message[];
  /** The handler takes a batch (`batch: true`), however many messages this call has. */
  readonly batch: boolean;
  readonly context: ConsumeContext;
  readonly handler: { readonly className: string; readonly method: string };
}

/**
 * Wraps every handler call, like RocketMQ's ConsumeMessageHook but as one around-function, so tracing spans and
 * timing live in one place. Call `proceed()` once and return (or rethrow) its result: a throw fails the call.
 *
 * @example
 * ```ts
 * const timing: ConsumeHook = {
 *   name: 'timing',
 *   async around(call, proceed) {
 *     const t = performance.now();
 *     try { return await proceed(); } finally { log(call.mq, performance.now() - t); }
 *   },
 * };
 * ```
 */
export interface ConsumeHook {
  readonly name: string;
  around(invocation: ConsumeInvocation, proceed: () => Promise<unknown>): Promise<unknown>;
}
