import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EventBus } from '@mqkit/core';
import { describeOffsetStoreContract } from '@mqkit/core/testing';
import { FileOffsetStore } from '@mqkit/offset-store-file';
import { describe } from 'vitest';

// The file store keeps one member's offsets: "two members" share one file, as two restarts of one member would.
describe('file offset store', () =>
  describeOffsetStoreContract('file', {
    // Last writer wins in a file, as in RocketMQ's LocalFileOffsetStore; broadcasting members never share a file.
    keepsMaximum: false,
    backend: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'mqkit-contract-'));
      const group = `contract-${randomUUID().slice(0, 8)}`;
      const path = join(dir, 'DEFAULT', group, 'offsets.json');
      return {
        group,
        createStore: () => new FileOffsetStore(path, group, new EventBus()),
        async corrupt() {
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, '{"version":1,"group":');
        },
        dispose: () => rm(dir, { recursive: true, force: true }),
      };
    },
  }));
