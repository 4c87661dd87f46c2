import {
  OffsetStoreError,
  mqKey,
  type EventBus,
  type MessageQueue,
  type OffsetStore,
  type OffsetWrite,
} from '@mqkit/core';
import { toError } from '@mqkit/core/internal';
import { readOffsetsFile, writeOffsetsFile, type OffsetMap } from './offsets-file';

/**
 * RocketMQ's LocalFileOffsetStore for BROADCASTING consumers: every member keeps its own offsets in a local file.
 * `load()` reads the file (a corrupt one fails the start, naming it); `write()` rewrites it atomically with every
 * queue known, keeping the entries of queues this member no longer holds, as Java does. A file has one writer, so
 * an entry is written as given, lowering or not (last writer wins, as in Java's store).
 */
export class FileOffsetStore implements OffsetStore {
  /** The file's content as this instance knows it: what it read, with its own writes over it. */
  #stored: OffsetMap = new Map();
  /** Queues this instance has written. */
  readonly #written = new Set<string>();
  #writing: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly group: string,
    private readonly events: EventBus,
  ) {}

  async load(): Promise<void> {
    this.#stored = await readOffsetsFile(this.path, this.group);
  }

  async read(mq: MessageQueue): Promise<number> {
    // RocketMQ's READ_FROM_STORE re-reads the file: another run of this member may have written it since load.
    const onDisk = await readOffsetsFile(this.path, this.group);
    // What this instance wrote itself is newer than the disk while its write is still under way.
    for (const [key, value] of onDisk) if (!this.#written.has(key)) this.#stored.set(key, value);
    return this.#stored.get(mqKey(mq))?.offset ?? -1;
  }

  /** Writes are serialised: each one starts after the previous finished, and includes everything known so far. */
  write(entries: readonly OffsetWrite[]): Promise<void> {
    if (entries.length === 0) return this.#writing;
    for (const { mq, offset } of entries) {
      const key = mqKey(mq);
      this.#stored.set(key, { mq, offset });
      this.#written.add(key);
    }
    const snapshot: OffsetMap = new Map(this.#stored);
    const next = this.#writing.then(async () => {
      try {
        await writeOffsetsFile(this.path, this.group, snapshot);
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
    this.#writing = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.#writing;
  }
}
