import type { EmbeddedBroker } from '@mqkit/transport-memory';
import type { SampleNestOptions } from './sample-nest-options';

/** The sample's options plus the embedded broker it runs on, as a Nest value provider. */
export interface SampleRuntimeOptions extends SampleNestOptions {
  readonly broker: EmbeddedBroker;
  readonly startedAt: number;
  /** Acknowledged order sends so far. */
  produced: number;
}

export const SAMPLE_OPTIONS = Symbol.for('mqkit:sample-nest-options');
