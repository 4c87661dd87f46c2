import { uniqueName } from '@mqkit/core/testing';
import { runNodeChild, type BenchChild } from './bench-process';

/** A member's latest "REBALANCE" line: its own wall-clock time and the queues it owns. */
interface Assignment {
  readonly at: number;
  readonly members: number;
  readonly queues: readonly string[];
}

async function waitUntil(check: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function covered(assignments: readonly (Assignment | undefined)[]): number {
  return new Set(assignments.flatMap((a) => a?.queues ?? [])).size;
}

/**
 * One convergence trial: 3 mqkit member processes (mqkit-member.child.cjs) join a fresh group on `topic`; once
 * they own every queue exactly once, member 0 gets SIGKILL. The broker sees its connection close and tells the
 * others; the result is the time from the kill to the moment the two survivors' assignments (by the time stamps
 * of the rebalance lines they print) cover every queue again. Processes run on this machine, so their clocks agree.
 */
export async function measureConvergence(options: {
  namesrvAddr: string;
  topic: string;
  queues: number;
  log: (line: string) => void;
}): Promise<number> {
  const group = uniqueName('benchConverge');
  const latest: (Assignment | undefined)[] = [undefined, undefined, undefined];
  const members: BenchChild[] = latest.map((_, i) =>
    runNodeChild(
      'mqkit-member.child.cjs',
      { namesrvAddr: options.namesrvAddr, topic: options.topic, group },
      {
        timeoutMs: 180_000,
        onLine: (line) => {
          if (line.startsWith('REBALANCE ')) latest[i] = JSON.parse(line.slice('REBALANCE '.length)) as Assignment;
        },
      },
    ),
  );
  // The members print no RESULT line: their exit is awaited below, not parsed.
  const exits = members.map((m) => new Promise<void>((resolve) => m.process.once('close', () => resolve())));
  for (const m of members) m.result.catch(() => undefined);
  try {
    const describe = (): string =>
      latest
        .map((a, i) => `member ${i}: ${a ? `${a.queues.length} queues of ${a.members} members` : 'nothing yet'}`)
        .join('; ');
    await waitUntil(
      () =>
        latest.every((a) => a?.members === 3) &&
        covered(latest) === options.queues &&
        latest.reduce((n, a) => n + a!.queues.length, 0) === options.queues,
      120_000,
      () => `3 members owning the ${options.queues} queues once each (${describe()})`,
    );
    const killedAt = Date.now();
    members[0]!.process.kill('SIGKILL');
    const survivors = (): (Assignment | undefined)[] => latest.slice(1);
    await waitUntil(
      () => covered(survivors()) === options.queues,
      60_000,
      () => `the survivors to cover every queue (${describe()})`,
    );
    const coveredAt = Math.max(killedAt, ...survivors().map((a) => a!.at));
    return coveredAt - killedAt;
  } finally {
    for (const m of members)
      if (m.process.exitCode === null && m.process.signalCode === null) m.process.kill('SIGTERM');
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 10_000))]);
    for (const m of members)
      if (m.process.exitCode === null && m.process.signalCode === null) m.process.kill('SIGKILL');
  }
}
