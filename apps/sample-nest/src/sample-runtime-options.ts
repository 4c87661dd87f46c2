import type { TransportPlugin } from '@mqkit/core';
import type { EmbeddedBroker } from '@mqkit/transport-memory';
import type { SampleNestOptions } from './sample-nest-options';

/** The sample's options plus what it runs on, as a Nest value provider. */
export interface SampleRuntimeOptions extends SampleNestOptions {
  readonly transport: TransportPlugin;
  /** The embedded broker (absent with --namesrv). */
  readonly broker: EmbeddedBroker | undefined;
  /** Tags this run's orders: on a real cluster the topics outlive a run, and earlier runs may have left orders. */
  readonly runId: string;
  readonly startedAt: number;
  /** Acknowledged order sends so far. */
  produced: number;
}

export const SAMPLE_OPTIONS = Symbol.for('mqkit:sample-nest-options');
