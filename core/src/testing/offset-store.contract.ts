import type { MessageQueue } from '../model/message-queue';
import { adaptOffsetStore } from '../offsets/legacy-offset-store.adapter';
import type { LegacyOffsetStore } from '../spi/legacy-offset-store';
import type { OffsetStore } from '../spi/offset-store';
import { OFFSET_STORE_CASES, type OffsetStoreCaseContext } from './offset-store.contract.cases';

/** One fresh backend (a new group on a shared server, a new temp dir) for one contract case. */
export interface OffsetStoreContractBackend {
  /** The consumer group the stores serve (the retry-topic case uses it). */
  readonly group: string;
  /**
   * A new store instance on this backend: another member of the group. The suite loads and closes it. A
   * LegacyOffsetStore runs through the app's adapter, as it would in an app (deprecated, for one release).
   */
  createStore(): OffsetStore | LegacyOffsetStore | Promise<OffsetStore | LegacyOffsetStore>;
  /**
   * Writes a value the store cannot read where it keeps this queue's offset (a non-number in a Redis hash, a
   * broken file). Omit it (and set `holdsBadData: false` in the setup) when the backend cannot hold bad data.
   */
  corrupt?(mq: MessageQueue): Promise<void>;
  /** Releases the backend after the case (its stores are closed first). */
  dispose?(): Promise<void> | void;
}

export interface OffsetStoreContractSetup {
  /** Called before every case. */
  backend(): Promise<OffsetStoreContractBackend> | OffsetStoreContractBackend;
  /**
   * Whether an ordinary write (`lowering: false`) can never lower a stored offset, so a stale member's late write is
   * harmless (default true). RocketMQ's broker overwrites committed offsets, and a file is last-writer-wins, so
   * those stores declare false and the two cases that need it are left out.
   */
  readonly keepsMaximum?: boolean;
  /**
   * Whether the backend can hold bad data (default true). When false the bad-data case is not registered: a
   * contract run never reports skipped cases, so CI (which counts skips as failures) stays meaningful.
   */
  readonly holdsBadData?: boolean;
  /** Per-case timeout (default 15 s). */
  readonly timeoutMs?: number;
}

/**
 * The OffsetStore contract as a vitest suite: every mqkit store runs it, and users run it against their own.
 * It runs on the app's own vitest: @mqkit/core neither depends on nor peers vitest, and loads it (`import('vitest')`)
 * only when this is called, from the test file that vitest is running. Await it at the top level of a spec.
 *
 * @example
 * ```ts
 * import { describeOffsetStoreContract } from '@mqkit/core/testing';
 *
 * await describeOffsetStoreContract('my store', {
 *   backend: () => {
 *     const group = `g-${randomUUID()}`;
 *     return { group, createStore: () => new MyOffsetStore(group, db), corrupt: (mq) => db.put(keyOf(group, mq), 'x') };
 *   },
 * });
 * ```
 */
export async function describeOffsetStoreContract(name: string, setup: OffsetStoreContractSetup): Promise<void> {
  const { describe, it, afterEach } = await import('vitest');
  const keepsMaximum = setup.keepsMaximum ?? true;
  const timeout = setup.timeoutMs ?? 15_000;
  let cleanup: Array<() => Promise<void> | void> = [];

  describe(`OffsetStore contract: ${name}`, () => {
    // Stores are closed (newest first) before their backend is disposed, also when a case fails.
    afterEach(async () => {
      const steps = cleanup.reverse();
      cleanup = [];
      for (const step of steps) await step();
    });

    for (const c of OFFSET_STORE_CASES) {
      // Cases a backend declares it cannot meet are left out, not skipped.
      if (c.requires === 'keepsMaximum' && !keepsMaximum) continue;
      if (c.requires === 'corrupt' && setup.holdsBadData === false) continue;
      it(
        c.name,
        async () => {
          const backend = await setup.backend();
          cleanup.push(() => backend.dispose?.());
          if (c.requires === 'corrupt' && !backend.corrupt)
            throw new Error('the backend has no corrupt(): set holdsBadData: false in the setup');
          await c.run(caseContext(backend, (step) => cleanup.push(step)));
        },
        timeout,
      );
    }
  });
}

function caseContext(
  backend: OffsetStoreContractBackend,
  onCleanup: (step: () => Promise<void>) => void,
): OffsetStoreCaseContext {
  return {
    group: backend.group,
    async member() {
      const store = adaptOffsetStore(await backend.createStore(), 'contract');
      onCleanup(async () => {
        await store.close?.();
      });
      await store.load();
      return store;
    },
    async corrupt(mq) {
      if (!backend.corrupt) throw new Error('this backend has no corrupt()');
      await backend.corrupt(mq);
    },
  };
}
