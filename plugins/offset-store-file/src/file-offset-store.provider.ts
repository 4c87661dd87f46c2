import type { OffsetStoreProvider } from '@mqkit/core';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { FileOffsetStore } from './file-offset-store';

export interface FileOffsetStoreOptions {
  /** Root directory (default `$MQKIT_OFFSETS_DIR` or `~/.mqkit/offsets`). */
  readonly dir?: string;
  /**
   * The member's name in the path; default the app's `instanceName`, else `DEFAULT` (as RocketMQ's broadcasting
   * consumers keep instanceName DEFAULT, so a restarted process finds its file). Two members on one host need
   * different names.
   */
  readonly name?: string;
}

/**
 * Offsets in a local file, `<dir>/<name>/<group>/offsets.json`: what BROADCASTING consumers need, since every
 * member keeps its own progress.
 *
 * @example
 * ```ts
 * const app = await createConsumerApp({ transport, consumers: [CacheInvalidator], offsetStore: fileOffsetStore() });
 * ```
 */
export function fileOffsetStore(options: FileOffsetStoreOptions = {}): OffsetStoreProvider {
  const dir = options.dir ?? process.env.MQKIT_OFFSETS_DIR ?? join(homedir(), '.mqkit', 'offsets');
  return {
    name: 'file',
    models: ['BROADCASTING'],
    create: ({ group, instanceName, events }) => {
      const name = sanitize(options.name ?? instanceName ?? 'DEFAULT');
      return new FileOffsetStore(join(dir, name, sanitize(group), 'offsets.json'), group, events);
    },
  };
}

function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_.#@%|-]/g, '_');
}
