import type { Codec } from '../../spi/codec';
import type { SubscriptionDefinition } from '../../definition/consumer-definition';
import { ConfigurationError } from '../../errors/configuration.error';

/** A subscription's handler, resolved once at start: the bound function plus how it wants its messages. */
export interface HandlerBinding {
  readonly topic: string;
  readonly batch: boolean;
  readonly codec: Codec;
  /** The return value is the reply to a request message. */
  readonly reply: boolean;
  readonly className: string;
  readonly method: string;
  readonly call: (input: unknown, context: unknown) => unknown;
}

export function bindHandler(subscription: SubscriptionDefinition): HandlerBinding {
  const { handler } = subscription;
  const instance = handler.resolve() as Record<string | symbol, unknown>;
  const fn = instance[handler.method];
  if (typeof fn !== 'function') {
    throw new ConfigurationError({
      source: handler.className,
      option: 'handler',
      value: String(handler.method),
      allowed: `a method named ${String(handler.method)} on ${handler.className} (a class-level @Consumer calls handle(message, ctx))`,
    });
  }
  return {
    topic: subscription.topic,
    batch: subscription.batch,
    codec: subscription.codec,
    reply: subscription.reply,
    className: handler.className,
    method: String(handler.method),
    call: (fn as (input: unknown, context: unknown) => unknown).bind(instance),
  };
}
