import type { Admin } from '@mqkit/core';
import { uniqueName } from '@mqkit/core/testing';
import { median, round, steadyMarks, steadyRate } from '../../report/run-stats';
import { idleWindow, memoryMb, type IdleWindow } from './proc-stat';
import { SIDES, type LineChild, type ScaleLauncher, type Side } from './scale-launcher';

/** The measured phases of `npm run bench -- scale`, each the same code for both clients. */

export interface TopicSet {
  readonly topics: readonly string[];
  /** Queues per topic (over both brokers). */
  readonly queuesPerTopic: number;
}

async function waitFor(check: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function describe(members: readonly LineChild[]): string {
  return members
    .map((m, i) => `member ${i + 1}: ${m.owned()} queues in ${m.latest.size} topics${m.alive ? '' : ' (exited)'}`)
    .join('; ');
}

/**
 * Whether `members` together own every queue of the set exactly once, each the same share, all agreeing on the
 * member count; then the time of the last ALLOC line that made it so.
 */
function balancedAt(members: readonly LineChild[], set: TopicSet): number | undefined {
  const total = set.topics.length * set.queuesPerTopic;
  if (members.some((m) => m.owned() * members.length !== total)) return undefined;
  let at = 0;
  for (const topic of set.topics) {
    const owners = new Set<string>();
    let count = 0;
    for (const m of members) {
      const a = m.latest.get(topic);
      if (!a || a.members !== members.length) return undefined;
      for (const q of a.queues) owners.add(q);
      count += a.queues.length;
      at = Math.max(at, a.at);
    }
    if (count !== set.queuesPerTopic || owners.size !== set.queuesPerTopic) return undefined;
  }
  return at;
}

/**
 * The broker's view of the same assignment (admin.consumerProgress: each queue's owner from the members' running
 * info), which works for both clients alike: every queue owned, by `members` clients with equal shares. Running
 * info can trail a rebalance by a moment, so it is asked a few times.
 */
async function confirmByAdmin(
  admin: Admin,
  group: string,
  set: TopicSet,
  members: number,
  log: (line: string) => void,
): Promise<boolean> {
  const total = set.topics.length * set.queuesPerTopic;
  let seen = '';
  for (let attempt = 0; attempt < 10; attempt++) {
    const rows = (await admin.consumerProgress(group)).filter((r) => set.topics.includes(r.topic));
    const byOwner = new Map<string, number>();
    for (const r of rows) byOwner.set(r.clientId ?? '(none)', (byOwner.get(r.clientId ?? '(none)') ?? 0) + 1);
    seen =
      rows.length === 0
        ? 'no rows (no offsets committed yet)'
        : `${rows.length} rows, owners ${[...byOwner].map(([c, n]) => `${c}=${n}`).join(' ')}`;
    if (
      rows.length === total &&
      !byOwner.has('(none)') &&
      byOwner.size === members &&
      [...byOwner.values()].every((n) => n * members === total)
    )
      return true;
    await sleep(1000);
  }
  log(`  admin.consumerProgress did not confirm the assignment of ${group}: ${seen}`);
  return false;
}

export interface MemberFigures {
  /** Idle windows (the first is the headline figure when there is one; several are consecutive windows). */
  readonly idle: readonly IdleWindow[];
  /** From the second member's start() call (its STARTING line) to the balanced assignment: the median of the trials. */
  readonly convergeMs: number;
  /** Each join trial's convergeMs, in order. */
  readonly convergeRunsMs: readonly number[];
  /** From the parent spawning the second member's process to the balanced assignment (process start included), median. */
  readonly convergeFromSpawnMs: number;
  readonly confirmedByAdmin: boolean;
}

/**
 * For every set (one per size) and each client, one member owning every queue of the set, all started together
 * (each its own group and process): given `settleSec` once every one owns its queues (start-up work, the first long
 * polls, JIT; both clients' idle CPU fell for minutes), then idle windows measured over the same seconds for all,
 * so a drift of the machine hits every size and both clients alike (a few idle processes on one CPU barely meet).
 * Then, size after size and client after client, `joinTrials` times a second member joins the group and the time
 * to a balanced assignment is taken from both members' ALLOC lines (between trials the second member stops and the
 * first owns every queue again); the other members idle meanwhile.
 */
export async function idleAndJoin(
  launcher: ScaleLauncher,
  admin: Admin,
  sets: readonly TopicSet[],
  options: { settleSec: number; idleSec: number; windows: number; joinTrials: number; log: (line: string) => void },
): Promise<Record<Side, MemberFigures>[]> {
  const totalOf = (set: TopicSet): number => set.topics.length * set.queuesPerTopic;
  const label = (i: number, side: Side): string => `${side} at ${totalOf(sets[i]!)} queues`;
  const members = sets.map((set) => {
    const bySide = {} as Record<Side, { group: string; first: LineChild }>;
    for (const side of SIDES) {
      const group = uniqueName(`scale_${side}`);
      bySide[side] = { group, first: launcher.member(side, group, set.topics) };
    }
    return bySide;
  });
  const each = sets.flatMap((set, i) => SIDES.map((side) => ({ i, side, set, ...members[i]![side] })));
  const seconds: LineChild[] = [];
  try {
    await Promise.all(
      each.map(async ({ i, side, set, first }) => {
        await waitFor(
          () => first.owned() === totalOf(set) && first.latest.size === set.topics.length,
          120_000,
          () => `one member ${label(i, side)} owning them all (${describe([first])})`,
        );
        options.log(`  ${label(i, side)}: one member owns them all ${Date.now() - first.spawnedAt} ms after spawn`);
      }),
    );
    options.log(`  ${each.length} members own their queues; settling ${options.settleSec} s`);
    await sleep(options.settleSec * 1000);
    const idle = each.map((): IdleWindow[] => []);
    for (let w = 0; w < options.windows; w++) {
      const measured = await Promise.all(each.map(({ first }) => idleWindow(first.pid, options.idleSec)));
      for (const [k, { i, side, first }] of each.entries()) {
        if (!first.alive) throw new Error(`the member ${label(i, side)} exited during the idle window`);
        const window = measured[k]!;
        idle[k]!.push(window);
        options.log(
          `  ${label(i, side)} idle window ${w + 1} (${options.idleSec} s): ${window.cpuPct} % of a core (system ${window.systemPct} %; per 5 s: ${window.slicesPct.join(', ')}; ` +
            `${window.readsPerSec} reads/s, ${window.writesPerSec} writes/s), RSS ${window.rssMb} MB, HWM ${window.hwmMb} MB`,
        );
      }
    }
    const figures = sets.map(() => ({}) as Record<Side, MemberFigures>);
    for (const [k, { i, side, set, group, first }] of each.entries()) {
      const fromStart: number[] = [];
      const fromSpawn: number[] = [];
      let confirmedByAdmin = true;
      let second: LineChild | undefined;
      for (let trial = 1; trial <= options.joinTrials; trial++) {
        if (second) {
          await second.stop();
          await waitFor(
            () => balancedAt([first], set) !== undefined,
            90_000,
            () => `the first member ${label(i, side)} owning them all again (${describe([first])})`,
          );
        }
        second = launcher.member(side, group, set.topics);
        seconds.push(second);
        const pair = [first, second];
        let at: number | undefined;
        await waitFor(
          () => {
            at = balancedAt(pair, set);
            return at !== undefined;
          },
          90_000,
          () => `two members ${label(i, side)} sharing them (${describe(pair)})`,
        );
        fromStart.push(Math.max(0, at! - (second.startingAt ?? second.spawnedAt)));
        fromSpawn.push(Math.max(0, at! - second.spawnedAt));
        options.log(
          `  ${label(i, side)}: join ${trial}: balanced ${fromStart.at(-1)} ms after the second member's start() (${fromSpawn.at(-1)} ms after spawn)`,
        );
        confirmedByAdmin &&= await confirmByAdmin(admin, group, set, 2, options.log);
      }
      await second?.stop();
      figures[i]![side] = {
        idle: idle[k]!,
        convergeMs: median(fromStart),
        convergeRunsMs: fromStart,
        convergeFromSpawnMs: median(fromSpawn),
        confirmedByAdmin,
      };
    }
    return figures;
  } finally {
    await Promise.all([...each.map(({ first }) => first.stop()), ...seconds.map((c) => c.stop())]);
  }
}

export interface BacklogFigures {
  readonly steadyMsgsPerSec: number;
  readonly firstMessageMs: number;
  readonly peakRssMb: number;
}

/** A fresh group reads the stored backlog of the set: the steady rate between the 10 % and the 90 % message. */
export async function backlog(
  launcher: ScaleLauncher,
  side: Side,
  set: TopicSet,
  expected: number,
  timeoutSec: number,
  log: (line: string) => void,
): Promise<BacklogFigures> {
  const marks = steadyMarks(expected);
  const run = await launcher.backlog(
    side,
    uniqueName(`scale_backlog_${side}`),
    set.topics,
    expected,
    marks,
    timeoutSec,
  );
  if (!run.ok || run.fromMs < 0 || run.toMs < 0)
    throw new Error(`${side} read ${run.received} of ${expected} messages within ${timeoutSec} s`);
  const figures = {
    steadyMsgsPerSec: Math.round(steadyRate(marks, run.fromMs * 1e6, run.toMs * 1e6)),
    firstMessageMs: Math.round(run.firstMessageMs),
    peakRssMb: round(run.peakRssKib / 1024, 1),
  };
  log(
    `  ${side} backlog: ${figures.steadyMsgsPerSec} msg/s steady (10 %-90 %), first message after ${figures.firstMessageMs} ms, all ${expected} in ${run.elapsedMs} ms, peak RSS ${figures.peakRssMb} MB`,
  );
  return figures;
}

export interface GroupsFigures {
  readonly startMs: number;
  /** Spawn to the median group's first message (a few slow groups show as startMs far above it). */
  readonly medianGroupMs: number;
  readonly rssMb: number;
  readonly hwmMb: number;
}

/** Many groups in one process: spawn to every group's first message, then RSS after `settleSec`. */
export async function manyGroups(
  launcher: ScaleLauncher,
  side: Side,
  groups: readonly { group: string; topic: string }[],
  settleSec: number,
  log: (line: string) => void,
): Promise<GroupsFigures> {
  const child = launcher.groups(side, groups);
  try {
    await waitFor(
      () => child.firstAt !== undefined,
      180_000,
      () => `${groups.length} groups' first messages (${side}${child.alive ? '' : ', exited'})`,
    );
    const startMs = child.firstAt! - child.spawnedAt;
    await sleep(settleSec * 1000);
    const memory = memoryMb(child.pid);
    const since = child.groupFirstAts.map((at) => at - child.spawnedAt);
    log(
      `  ${side} ${groups.length} groups: first messages ${since[0]} ms (first group), ${since[since.length >> 1]} ms (median), ${startMs} ms (last) after spawn; RSS ${memory.rssMb} MB ${settleSec} s later, HWM ${memory.hwmMb} MB`,
    );
    return { startMs, medianGroupMs: since[since.length >> 1]!, ...memory };
  } finally {
    await child.stop();
  }
}
