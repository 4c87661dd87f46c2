import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uniqueName } from '@mqkit/core/testing';
import { round } from '../../report/run-stats';
import { idleWindow, memoryMb } from './proc-stat';
import type { LineChild, ScaleLauncher } from './scale-launcher';
import type { TopicSet } from './scale-phases';

/**
 * Where an idle mqkit member's CPU and memory go when it misses a target: a separate member process (the profiler
 * costs CPU, so the measured runs never have it) owning the same queues, with a CPU profile over an idle window
 * and a heap snapshot after it, both summarised here.
 */

interface CpuProfile {
  readonly nodes: readonly {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: readonly number[];
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

interface Ranked {
  readonly name: string;
  readonly ms?: number;
  readonly mb?: number;
  readonly count?: number;
}

/** A source URL without the machine's prefix: `core/dist/…`, `plugins/transport-rocketmq/dist/…`, `node:internal/…`. */
function shortUrl(url: string): string {
  const m = /\/((?:core|plugins\/[^/]+)\/dist\/[^?]+)$/.exec(url);
  return m ? m[1]! : url.replace(/^file:\/\//, '');
}

function top(map: Map<string, number>, n: number, unit: 'ms' | 'mb', counts?: Map<string, number>): Ranked[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, v]) => ({
      name,
      [unit]: unit === 'ms' ? round(v / 1000, 1) : round(v / 1024 / 1024, 2),
      ...(counts ? { count: counts.get(name) } : {}),
    }));
}

/** mqkit's own built code (core and plugins), not Node's or a dependency's. */
const isMqkit = (url: string): boolean => /\/(core|plugins\/[^/]+)\/dist\//.test(url) && !url.includes('node_modules');

/**
 * Self time by function and by file over the profile ((idle) left out, reported apart), and each busy sample
 * charged to the nearest mqkit function on its stack (itself or a caller): which of mqkit's code paths the time
 * of native calls such as socket writes belongs to.
 */
export function summarizeCpuProfile(profile: CpuProfile): {
  sampledMs: number;
  idleMs: number;
  busyMs: number;
  gcMs: number;
  topFunctions: Ranked[];
  topFiles: Ranked[];
  byMqkitCaller: Ranked[];
} {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (f: { functionName: string; url: string; lineNumber: number }): string =>
    `${f.functionName || '(anonymous)'} ${f.url ? shortUrl(f.url) : ''}:${f.lineNumber + 1}`;
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  const callers = new Map<string, number>();
  let sampled = 0;
  let idle = 0;
  let gc = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)!;
    sampled += us;
    if (frame.functionName === '(idle)') {
      idle += us;
      return;
    }
    if (frame.functionName === '(garbage collector)') gc += us;
    const file = frame.url ? shortUrl(frame.url) : frame.functionName;
    fns.set(label(frame), (fns.get(label(frame)) ?? 0) + us);
    files.set(file, (files.get(file) ?? 0) + us);
    let at: number | undefined = id;
    while (at !== undefined && !isMqkit(byId.get(at)!.url)) at = parent.get(at);
    const caller = at === undefined ? '(no mqkit frame)' : label(byId.get(at)!);
    callers.set(caller, (callers.get(caller) ?? 0) + us);
  });
  return {
    sampledMs: round(sampled / 1000),
    idleMs: round(idle / 1000),
    busyMs: round((sampled - idle) / 1000, 1),
    gcMs: round(gc / 1000, 1),
    topFunctions: top(fns, 12, 'ms'),
    topFiles: top(files, 8, 'ms'),
    byMqkitCaller: top(callers, 12, 'ms'),
  };
}

interface AllocationNode {
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly AllocationNode[];
}

/** A sampled allocation profile (collected objects included): bytes allocated, by the nearest mqkit caller. */
export function summarizeAllocations(
  head: AllocationNode,
  seconds: number,
): { sampledMb: number; mbPerSec: number; byMqkitCaller: Ranked[] } {
  const callers = new Map<string, number>();
  let total = 0;
  const walk = (node: AllocationNode, caller: string): void => {
    const f = node.callFrame;
    const here = isMqkit(f.url) ? `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber + 1}` : caller;
    total += node.selfSize;
    if (node.selfSize > 0) callers.set(here, (callers.get(here) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c, here);
  };
  walk(head, '(no mqkit frame)');
  return {
    sampledMb: round(total / 1024 / 1024, 1),
    mbPerSec: round(total / 1024 / 1024 / seconds, 2),
    byMqkitCaller: top(callers, 10, 'mb'),
  };
}

/** Self size and count by constructor (objects, closures) or by node type (strings, arrays, code, ...). */
export function summarizeHeapSnapshot(text: string): { totalMb: number; top: Ranked[] } {
  const snap = JSON.parse(text) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const bytes = new Map<string, number>();
  const counts = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const name = snap.strings[snap.nodes[i + nameAt]!]!;
    const size = snap.nodes[i + sizeAt]!;
    const key =
      type === 'object' || type === 'native'
        ? name
        : type === 'closure'
          ? `closure ${name || '(anonymous)'}`
          : `(${type})`;
    bytes.set(key, (bytes.get(key) ?? 0) + size);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    total += size;
  }
  return { totalMb: round(total / 1024 / 1024, 1), top: top(bytes, 15, 'mb', counts) };
}

async function waitForLine(child: LineChild, tag: string, timeoutMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  while (!child.lines.has(tag)) {
    if (Date.now() > deadline || !child.alive) throw new Error(`the diagnosed member printed no ${tag} line`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return child.lines.get(tag)!;
}

async function ownAll(member: LineChild, total: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (member.owned() !== total) {
    if (Date.now() > deadline || !member.alive) throw new Error(`the diagnosed member did not own ${total} queues`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** V8's young generation capped at 1 MiB semi-spaces (default 16): how much of the RSS is heap headroom for garbage. */
const SMALL_SEMI_SPACE = '--max-semi-space-size=1';

/**
 * One diagnosed mqkit member owning every queue of the set: CPU profile over `profileSec` idle, then memory (heap
 * spaces, a heap snapshot). Then the same member with SMALL_SEMI_SPACE, unprofiled: its idle CPU and RSS.
 */
export async function diagnoseMqkitMember(
  launcher: ScaleLauncher,
  set: TopicSet,
  options: { settleSec: number; profileSec: number; log: (line: string) => void },
): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'mqkit-scale-diagnosis-'));
  const total = set.topics.length * set.queuesPerTopic;
  const mb = (n: number | undefined): number => round((n ?? 0) / 1024 / 1024, 1);
  const member = launcher.member('mqkit', uniqueName('scale_diagnose'), set.topics, { dir });
  let diagnosis: Record<string, unknown>;
  try {
    await ownAll(member, total);
    await new Promise((r) => setTimeout(r, options.settleSec * 1000));
    member.child.process.kill('SIGUSR2');
    await waitForLine(member, 'PROFILING', 10_000);
    await new Promise((r) => setTimeout(r, options.profileSec * 1000));
    const rss = memoryMb(member.pid);
    member.child.process.kill('SIGUSR2');
    const files = (await waitForLine(member, 'DIAGNOSED', 180_000)) as {
      cpuprofile: string;
      allocations: string | null;
      heapsnapshot: string;
    };
    const m = member.lines.get('MEMORY') as Record<string, number> & {
      spaces: Record<string, { size: number; used: number }>;
      gcs: Record<string, number>;
      events: { pulls: number; commits: number };
    };
    const allocations = files.allocations
      ? summarizeAllocations(
          (JSON.parse(readFileSync(files.allocations, 'utf8')) as { head: AllocationNode }).head,
          options.profileSec,
        )
      : undefined;
    const perSec = {
      pulls: round(m.events.pulls / options.profileSec, 1),
      commits: round(m.events.commits / options.profileSec, 1),
    };
    const cpu = summarizeCpuProfile(JSON.parse(readFileSync(files.cpuprofile, 'utf8')) as CpuProfile);
    const heap = summarizeHeapSnapshot(readFileSync(files.heapsnapshot, 'utf8'));
    const spaces = Object.fromEntries(
      Object.entries(m.spaces).map(([k, v]) => [k, { sizeMb: mb(v.size), usedMb: mb(v.used) }]),
    );
    const gcs = { minor: m.gcs.minor, major: m.gcs.major, other: m.gcs.other, ms: round(m.gcs.ms ?? 0, 1) };
    diagnosis = {
      queues: total,
      profileSeconds: options.profileSec,
      rssMb: rss.rssMb,
      heapUsedMb: mb(m.heapUsed),
      heapTotalMb: mb(m.heapTotal),
      externalMb: mb(m.external),
      arrayBuffersMb: mb(m.arrayBuffers),
      heapSpaces: spaces,
      gcs,
      requestsPerSec: perSec,
      allocations,
      cpu,
      heap,
    };
    const d = diagnosis as { heapUsedMb: number; heapTotalMb: number; externalMb: number; arrayBuffersMb: number };
    options.log(
      `  diagnosis of an idle mqkit member owning ${total} queues: RSS ${rss.rssMb} MB, heap used ${d.heapUsedMb} of ${d.heapTotalMb} MB, external ${d.externalMb} MB (array buffers ${d.arrayBuffersMb} MB)`,
    );
    options.log(
      `  heap spaces (committed/used MB): ${Object.entries(spaces)
        .map(([k, v]) => `${k} ${v.sizeMb}/${v.usedMb}`)
        .join(', ')}; GCs in ${options.profileSec} s: ${gcs.minor} minor, ${gcs.major} major, ${gcs.ms} ms`,
    );
    options.log(`  requests per second: ${perSec.pulls} pulls answered, ${perSec.commits} offset commits`);
    if (allocations)
      options.log(
        `  allocated (sampled, garbage included): ${allocations.mbPerSec} MB/s; by nearest mqkit caller: ${allocations.byMqkitCaller.map((a) => `${a.name} ${a.mb} MB`).join('; ')}`,
      );
    options.log(
      `  CPU profile over ${options.profileSec} s: ${cpu.busyMs} ms on the main thread (GC ${cpu.gcMs} ms); top: ${cpu.topFunctions
        .slice(0, 8)
        .map((f) => `${f.name} ${f.ms} ms`)
        .join('; ')}`,
    );
    options.log(`  by nearest mqkit caller: ${cpu.byMqkitCaller.map((f) => `${f.name} ${f.ms} ms`).join('; ')}`);
    options.log(
      `  heap snapshot (${heap.totalMb} MB live): ${heap.top.map((h) => `${h.name} ${h.mb} MB x${h.count}`).join('; ')}`,
    );
  } finally {
    await member.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const small = launcher.member('mqkit', uniqueName('scale_diagnose'), set.topics, { nodeOptions: SMALL_SEMI_SPACE });
  try {
    await ownAll(small, total);
    await new Promise((r) => setTimeout(r, options.settleSec * 1000));
    const window = await idleWindow(small.pid, options.profileSec);
    options.log(
      `  the same member with NODE_OPTIONS=${SMALL_SEMI_SPACE}: idle ${window.cpuPct} % of a core over ${options.profileSec} s, RSS ${window.rssMb} MB, HWM ${window.hwmMb} MB`,
    );
    return {
      ...diagnosis,
      smallSemiSpace: {
        nodeOptions: SMALL_SEMI_SPACE,
        idleCpuPct: window.cpuPct,
        rssMb: window.rssMb,
        hwmMb: window.hwmMb,
      },
    };
  } finally {
    await small.stop();
  }
}
