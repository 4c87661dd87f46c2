import { readFileSync, statfsSync } from 'node:fs';

/**
 * Where the RocketMQ benches' brokers keep their stores (commit log, consume queues, logs).
 *
 * On this VM the disk, not the clients, made most of the latency tail: with the store on the root disk the
 * broker's writes to its mapped commit log waited on the kernel's writeback now and then, and the paced producer,
 * the broker and every consumer behind them stalled together. At 5,000 msg/s the same mqkit consumer measured p99
 * 10.98 / 11.13 ms on tmpfs and 14.28 / 21.00 ms on disk two minutes later (results/trials/latency-store-tmpfs.json,
 * latency-store-disk-0606.json); the stalls come and go (latency-store-disk.json, half an hour on: 9.73 / 7.57).
 * The benches compare clients against one broker, so the broker gets a store that does not stall: tmpfs at
 * /dev/shm when the machine has one with room, printed with the settings. MQKIT_BENCH_STORE=disk keeps it in the
 * OS temp dir; MQKIT_BENCH_STORE=<dir> puts it in that folder.
 */
export interface StorePlacement {
  /** The parent folder of the cluster's files; undefined for the OS temp dir. */
  readonly dir: string | undefined;
  /** The settings line's text. */
  readonly describe: string;
}

export interface StoreProbe {
  /** /proc/mounts, or '' where there is none. */
  mounts(): string;
  freeBytes(dir: string): number;
}

/** The tmpfs the benches use, and the room it must have (the `rocketmq` case stores 3 GB before timing). */
export const TMPFS_DIR = '/dev/shm';
export const TMPFS_MIN_FREE_BYTES = 8 * 1024 ** 3;

const hostProbe: StoreProbe = {
  mounts: () => {
    try {
      return readFileSync('/proc/mounts', 'utf8');
    } catch {
      return '';
    }
  },
  freeBytes: (dir) => {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  },
};

export function planStorePlacement(
  setting: string | undefined = process.env.MQKIT_BENCH_STORE,
  probe: StoreProbe = hostProbe,
): StorePlacement {
  if (setting === 'disk')
    return { dir: undefined, describe: 'broker store in the OS temp dir (MQKIT_BENCH_STORE=disk)' };
  if (setting !== undefined && setting !== '')
    return { dir: setting, describe: `broker store under ${setting} (MQKIT_BENCH_STORE)` };
  const tmpfs = probe
    .mounts()
    .split('\n')
    .some((line) => {
      const [, mountPoint, type] = line.split(' ');
      return mountPoint === TMPFS_DIR && type === 'tmpfs';
    });
  if (!tmpfs) return { dir: undefined, describe: `broker store in the OS temp dir (no tmpfs at ${TMPFS_DIR})` };
  const free = probe.freeBytes(TMPFS_DIR);
  if (free < TMPFS_MIN_FREE_BYTES) {
    return {
      dir: undefined,
      describe: `broker store in the OS temp dir (${TMPFS_DIR} has ${(free / 1024 ** 3).toFixed(1)} GiB free, less than ${TMPFS_MIN_FREE_BYTES / 1024 ** 3})`,
    };
  }
  return {
    dir: TMPFS_DIR,
    describe: `broker store on tmpfs (${TMPFS_DIR}; MQKIT_BENCH_STORE=disk for the OS temp dir)`,
  };
}
