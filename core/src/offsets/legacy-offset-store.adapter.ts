import type { MessageQueue } from '../model/message-queue';
import type { LegacyOffsetStore } from '../spi/legacy-offset-store';
import type { OffsetStore, OffsetWrite } from '../spi/offset-store';

/** The code of the DeprecationWarning a LegacyOffsetStore causes (once per process). */
export const LEGACY_OFFSET_STORE_WARNING = 'MQKIT_LEGACY_OFFSET_STORE';

let warned = false;

/** A store written against the former interface: `update` and `persist`, and no `write`. */
export function isLegacyOffsetStore(store: OffsetStore | LegacyOffsetStore): store is LegacyOffsetStore {
  const s = store as Partial<OffsetStore & LegacyOffsetStore>;
  return typeof s.write !== 'function' && typeof s.update === 'function' && typeof s.persist === 'function';
}

/**
 * What a provider made, as an OffsetStore: a LegacyOffsetStore is wrapped (with a DeprecationWarning, once per
 * process: an app with many groups, or many apps, would otherwise repeat it), anything else is returned as it is.
 */
export function adaptOffsetStore(store: OffsetStore | LegacyOffsetStore, provider: string): OffsetStore {
  if (!isLegacyOffsetStore(store)) return store;
  if (!warned) {
    warned = true;
    process.emitWarning(
      `mqkit: the offset store "${provider}" implements the former OffsetStore interface (update, reset, persist, ` +
        'remove), which is deprecated: it runs through an adapter in this release. Implement read(mq) and ' +
        'write(entries) instead (see LegacyOffsetStore in @mqkit/core).',
      { type: 'DeprecationWarning', code: LEGACY_OFFSET_STORE_WARNING },
    );
  }
  return new LegacyOffsetStoreAdapter(store);
}

/**
 * A LegacyOffsetStore behind the OffsetStore interface. ConsumeProgress has applied RocketMQ's updateOffset rules
 * already, so each entry is set as given (a plain update, or a reset for a lowering one) and persisted with
 * `unchanged: true`: the legacy store's own dirty tracking must not skip what ConsumeProgress decided to write.
 * `remove` is never called: the legacy store keeps one in-memory entry per queue it was given, which is what its
 * own backpressure (if any) measures, and which a later write overwrites.
 */
class LegacyOffsetStoreAdapter implements OffsetStore {
  readonly #legacy: LegacyOffsetStore;

  constructor(legacy: LegacyOffsetStore) {
    this.#legacy = legacy;
  }

  load(): Promise<void> {
    return this.#legacy.load();
  }

  read(mq: MessageQueue): Promise<number> {
    return this.#legacy.read(mq, 'store');
  }

  async write(entries: readonly OffsetWrite[]): Promise<void> {
    if (entries.length === 0) return;
    for (const { mq, offset, lowering } of entries) {
      if (lowering) this.#legacy.reset(mq, offset);
      else this.#legacy.update(mq, offset, { increaseOnly: false });
    }
    await this.#legacy.persist(
      entries.map((e) => e.mq),
      { unchanged: true },
    );
  }

  async close(): Promise<void> {
    await this.#legacy.close?.();
  }

  watchBackpressure(listener: (paused: boolean) => void): () => void {
    return this.#legacy.watchBackpressure?.(listener) ?? (() => undefined);
  }
}
