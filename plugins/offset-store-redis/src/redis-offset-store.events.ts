import type { MessageQueue } from '@mqkit/core';

/** One flush of a Redis offset store: one script call, whatever the number of queues. */
export interface OffsetStoreFlushEvent {
  readonly store: string;
  readonly group: string;
  /** Queues sent in this flush (what the writes waiting for it handed, one entry per queue). */
  readonly entries: number;
  /** Fields the script wrote (raised, new, or explicit resets). */
  readonly applied: number;
  /** Commits not higher than what Redis already held (a stale member, or another member ahead). */
  readonly skipped: number;
  readonly durationMs: number;
}

declare module '@mqkit/core' {
  interface MqkitEvents {
    /** A Redis offset store flushed the offsets it was handed (emitted by @mqkit/offset-store-redis). */
    'offset-store.flush': OffsetStoreFlushEvent;
  }
}

/** Re-exported so the augmentation above is part of the package's types. */
export type { MessageQueue };
