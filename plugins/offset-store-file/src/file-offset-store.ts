import {
  OffsetStoreError,
  mqKey,
  type EventBus,
  type MessageQueue,
  type OffsetStore,
  type ReadOffsetFrom,
} from '@mqkit/core';
import { OffsetTable, toError } from '@mqkit/core/internal';
import { readOffsetsFile, writeOffsetsFile, type OffsetMap } from './offsets-file';

/**
 * RocketMQ's LocalFileOffsetStore for BROADCASTING consumers: every member keeps its own offsets in a local file.
 * `load()` reads the file (a corrupt one fails the start, naming it); `persist()` writes every known queue
 * atomically, keeping the entries of queues this member no longer holds, as Java does.
 */
export class FileOffsetStore implements OffsetStore {
  private readonly table = new OffsetTable();
  private stored: OffsetMap = new Map();
  /** Queues this instance has persisted. */
  private readonly written = new Set<string>();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly group: string,
    private readonly events: EventBus,
  ) {}

  async load(): Promise<void> {
    this.stored = await readOffsetsFile(this.path, this.group);
  }

  async read(mq: MessageQueue, from: ReadOffsetFrom): Promise<number> {
    if (from !== 'store' && this.table.has(mq)) return this.table.get(mq);
    // RocketMQ's READ_FROM_STORE re-reads the file: another run of this member may have written it since load.
    const onDisk = await readOffsetsFile(this.path, this.group);
    // What this instance persisted itself is newer than the disk while its write is still under way.
    for (const [key, value] of onDisk) if (!this.written.has(key)) this.stored.set(key, value);
    const entry = this.stored.get(mqKey(mq));
    if (!entry) return -1;
    this.table.load(mq, entry.offset);
    return entry.offset;
  }

  update(mq: MessageQueue, offset: number, options: { increaseOnly: boolean }): void {
    this.table.update(mq, offset, options.increaseOnly);
  }

  reset(mq: MessageQueue, offset: number): void {
    this.table.reset(mq, offset);
  }

  /** Writes are serialised: each one starts after the previous finished, and includes everything known so far. */
  persist(mqs: Iterable<MessageQueue>): Promise<void> {
    const entries = this.table.select(mqs);
    if (entries.length === 0) return this.writing;
    for (const e of entries) {
      const key = mqKey(e.mq);
      this.stored.set(key, { mq: e.mq, offset: e.offset });
      this.written.add(key);
    }
    const written = entries.map((entry) => ({ entry, offset: entry.offset, lowering: entry.lowering }));
    const snapshot: OffsetMap = new Map(this.stored);
    const next = this.writing.then(async () => {
      try {
        await writeOffsetsFile(this.path, this.group, snapshot);
        this.table.markPersisted(written);
      } catch (error) {
        const failure = new OffsetStoreError(`cannot write the offsets file ${this.path}: ${toError(error).message}`, {
          key: this.path,
          cause: error,
        });
        this.events.emit('offset-store.error', { store: 'file', group: this.group, error: failure });
        throw failure;
      }
    });
    // The chain itself never rejects, so one failed write does not fail every later one.
    this.writing = next.catch(() => undefined);
    return next;
  }

  remove(mq: MessageQueue): void {
    this.table.remove(mq);
  }

  async close(): Promise<void> {
    await this.writing;
  }
}
