import type { ConsumerOptions } from '../options/consumer-options';

/** Metadata key of `@Consumer` declarations on a class (namespaced, docs/architecture.md#style-rules). */
export const CONSUMER_METADATA = 'mqkit:consumer';

/** What `@Consumer` records: the options and the method that handles the messages. */
export interface ConsumerMetadata {
  readonly options: ConsumerOptions;
  readonly method: string | symbol;
}

export function readConsumerMetadata(target: abstract new (...args: never[]) => unknown): readonly ConsumerMetadata[] {
  return (Reflect.getOwnMetadata(CONSUMER_METADATA, target) as ConsumerMetadata[] | undefined) ?? [];
}
