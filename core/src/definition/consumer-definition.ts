import type { ResolvedGroupOptions, ConsumerOptions } from '../options/consumer-options';
import type { SubscriptionData } from '../model/subscription';
import type { Codec } from '../spi/codec';

/** Where the handler of a subscription lives. `resolve` is the seam other DI containers (Nest) plug into. */
export interface HandlerRef {
  readonly className: string;
  readonly method: string | symbol;
  /** Returns the object whose `method` handles the messages; called once when the consumer starts. */
  resolve(): object;
}

/** One `@Consumer` declaration, after discovery. */
export interface ConsumerDeclaration {
  readonly options: ConsumerOptions;
  readonly handler: HandlerRef;
}

/** One topic of a consumer group, with its handler. */
export interface SubscriptionDefinition {
  readonly topic: string;
  readonly subscription: SubscriptionData;
  readonly batch: boolean;
  readonly codec: Codec;
  /** The handler's return value answers request messages (`@Consumer({ reply: true })`). */
  readonly reply: boolean;
  readonly handler: HandlerRef;
}

/** A consumer group as the runtime runs it: merged declarations, validated options. */
export interface ConsumerDefinition {
  readonly group: string;
  readonly options: ResolvedGroupOptions;
  readonly subscriptions: readonly SubscriptionDefinition[];
  /** The classes that declared it, for error messages. */
  readonly sources: readonly string[];
}
