import type { MessageQueue } from '../model/message-queue';
import { toError } from '../util/deferred';
import type { EventBus } from './event-bus';

/** Reports a failure a consumer group recovered from on `consumer.error`; `where` names the stage. */
export function reportError(
  ctx: { readonly group: string; readonly events: EventBus },
  where: string,
  error: unknown,
  mq?: MessageQueue,
): void {
  ctx.events.emit(
    'consumer.error',
    mq ? { group: ctx.group, where, error: toError(error), mq } : { group: ctx.group, where, error: toError(error) },
  );
}
