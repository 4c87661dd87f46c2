import { OffsetStoreError, mqKey, type MessageQueue } from '@mqkit/core';
import { constants } from 'node:fs';
import { copyFile, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The file layout: readable JSON, one entry per queue. */
interface OffsetsFileV1 {
  readonly version: 1;
  readonly group: string;
  readonly offsets: ReadonlyArray<{ topic: string; brokerName: string; queueId: number; offset: number }>;
}

export type OffsetMap = Map<string, { mq: MessageQueue; offset: number }>;

/**
 * Reads the offsets file. A missing file is an empty map; anything unreadable or malformed is an OffsetStoreError
 * naming the path, after a copy of the bad file is kept next to it (so starting over never destroys evidence).
 */
export async function readOffsetsFile(path: string, group: string): Promise<OffsetMap> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new OffsetStoreError(`cannot read the offsets file ${path}: ${(error as Error).message}`, {
      key: path,
      retriable: false,
      cause: error,
    });
  }
  try {
    return parse(text, group);
  } catch (error) {
    const copy = `${path}.corrupt-${Date.now()}`;
    await copyFile(path, copy).catch(() => undefined);
    throw new OffsetStoreError(
      `the offsets file ${path} is corrupt (${(error as Error).message}); a copy was kept at ${copy}. Fix it, or delete it to start again from consumeFromWhere`,
      { key: path, retriable: false, cause: error },
    );
  }
}

function parse(text: string, group: string): OffsetMap {
  const data = JSON.parse(text) as OffsetsFileV1;
  if (data?.version !== 1 || !Array.isArray(data.offsets)) throw new Error('not an mqkit offsets file (version 1)');
  if (data.group !== group)
    throw new Error(`it belongs to group ${JSON.stringify(data.group)}, not ${JSON.stringify(group)}`);
  const map: OffsetMap = new Map();
  for (const e of data.offsets) {
    const ok =
      typeof e?.topic === 'string' &&
      typeof e.brokerName === 'string' &&
      Number.isSafeInteger(e.queueId) &&
      Number.isSafeInteger(e.offset) &&
      e.offset >= 0;
    if (!ok) throw new Error(`bad entry ${JSON.stringify(e)}`);
    const mq = { topic: e.topic, brokerName: e.brokerName, queueId: e.queueId };
    map.set(mqKey(mq), { mq, offset: e.offset });
  }
  return map;
}

let tmpCounter = 0;

/**
 * Writes atomically: a temporary file in the same directory, fsync, rename over the old file, fsync the directory.
 * A crash at any point leaves either the old file or the new one, never a torn one.
 */
export async function writeOffsetsFile(path: string, group: string, offsets: OffsetMap): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const data: OffsetsFileV1 = {
    version: 1,
    group,
    offsets: [...offsets.values()].map(({ mq, offset }) => ({
      topic: mq.topic,
      brokerName: mq.brokerName,
      queueId: mq.queueId,
      offset,
    })),
  };
  const tmp = `${path}.tmp-${process.pid}-${++tmpCounter}`;
  const file = await open(tmp, 'w', 0o644);
  try {
    await file.writeFile(`${JSON.stringify(data, null, 2)}\n`, 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
  const d = await open(dir, constants.O_RDONLY);
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
