import { describe, expect, it } from 'vitest';
import { planStorePlacement, TMPFS_MIN_FREE_BYTES, type StoreProbe } from './store-placement';

const probe = (mounts: string, free = TMPFS_MIN_FREE_BYTES): StoreProbe => ({
  mounts: () => mounts,
  freeBytes: () => free,
});
const SHM = 'shm /dev/shm tmpfs rw,nosuid,nodev 0 0\n/dev/vda / ext4 rw,relatime 0 0\n';

describe('where the bench brokers keep their stores', () => {
  it('tmpfs at /dev/shm when it is mounted and has room', () => {
    expect(planStorePlacement(undefined, probe(SHM))).toMatchObject({
      dir: '/dev/shm',
      describe: expect.stringContaining('tmpfs'),
    });
  });

  it('the OS temp dir when /dev/shm is not a tmpfs or is short of room, saying why', () => {
    expect(planStorePlacement(undefined, probe('/dev/vda /dev/shm ext4 rw 0 0\n'))).toMatchObject({
      dir: undefined,
      describe: expect.stringContaining('no tmpfs'),
    });
    expect(planStorePlacement(undefined, probe(''))).toMatchObject({ dir: undefined });
    expect(planStorePlacement(undefined, probe(SHM, TMPFS_MIN_FREE_BYTES - 1))).toMatchObject({
      dir: undefined,
      describe: expect.stringContaining('GiB free'),
    });
  });

  it('MQKIT_BENCH_STORE=disk or a folder overrides the choice', () => {
    expect(planStorePlacement('disk', probe(SHM)).dir).toBeUndefined();
    expect(planStorePlacement('/data/bench', probe(SHM)).dir).toBe('/data/bench');
  });
});
