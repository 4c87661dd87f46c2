import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readDescriptor } from './cluster-descriptor';
import { isProcessAlive, stopProcess } from './process-control';

/** Pids of processes whose command line mentions `marker` (Linux /proc; elsewhere none). */
function pidsMentioning(marker: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return [];
    try {
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

/**
 * Stops the JVMs and removes the folders of harness clusters whose owner died without `stop()` (a killed test
 * run), so they do not pile up across runs. Clusters with a live owner are left alone, and so are folders
 * without a descriptor younger than 10 minutes (a start in progress elsewhere).
 */
export async function reapOrphanClusters(parent: string): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(parent).filter((name) => name.startsWith('mqkit-rocketmq-'));
  } catch {
    return 0;
  }
  let reaped = 0;
  for (const name of names) {
    const dir = join(parent, name);
    const file = join(dir, 'cluster.json');
    try {
      if (existsSync(file)) {
        const { ownerPid } = readDescriptor(file);
        if (isProcessAlive(ownerPid)) continue;
      } else if (Date.now() - statSync(dir).mtimeMs < 10 * 60_000) {
        continue;
      }
    } catch {
      continue;
    }
    await Promise.all(pidsMentioning(dir).map((pid) => stopProcess(pid, dir, { force: true })));
    await rm(dir, { recursive: true, force: true });
    reaped++;
  }
  return reaped;
}
