import { statfs } from 'node:fs/promises';
import { RocketMqHarnessError } from './rocketmq-harness.error';

/**
 * Used fraction of the file system holding `path`, computed as the broker does (UtilAll
 * .getDiskPartitionSpaceUsedPercent: used / (used + usable), i.e. df's Use%).
 */
export async function diskUsedRatio(path: string): Promise<number> {
  const stats = await statfs(path);
  const used = (stats.blocks - stats.bfree) * stats.bsize;
  const usable = stats.bavail * stats.bsize;
  return used + usable === 0 ? 0 : used / (used + usable);
}

/**
 * Refuses to start a broker whose store disk is over `maxRatio` (default 0.85) used: the broker marks its store
 * full above `diskSpaceWarningLevelRatio` (90 %, capped there) and then rejects every send, which would show up
 * as confusing test failures instead of this message.
 */
export async function assertDiskHasRoom(path: string, maxRatio = 0.85): Promise<number> {
  const ratio = await diskUsedRatio(path);
  if (ratio > maxRatio) {
    throw new RocketMqHarnessError(
      'disk-full',
      `the disk holding ${path} is ${(ratio * 100).toFixed(1)}% full (limit ${maxRatio * 100}%); the broker rejects sends ` +
        'above 90%. Free space or point TMPDIR (or the storeRoot option) at a disk with room.',
    );
  }
  return ratio;
}
