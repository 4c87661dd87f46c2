import type { Cluster } from '../connect';
import type { Output } from '../output';
import { renderTable } from '../table';

export interface TopArgs {
  readonly group: string;
  readonly intervalMs: number;
  /** Frames to draw before exiting (default: until interrupted). */
  readonly iterations?: number;
}

/** Home the cursor and clear the screen, so each frame replaces the last one in place. */
const CLEAR = '\u001b[H\u001b[2J';

/**
 * `mqkit top --group G`: a live view of a group, redrawn in place every interval: each queue's owner, lag and
 * consume rate (the group's offset moves between two frames, per second). Off a terminal, or with --json, frames
 * are printed one after another instead.
 */
export async function top(
  cluster: Cluster,
  out: Output,
  args: TopArgs,
  signal: AbortSignal,
  tty = process.stdout.isTTY === true,
): Promise<void> {
  const admin = await cluster.admin();
  let previous: { at: number; offsets: Map<string, number> } | undefined;
  for (let frame = 0; !signal.aborted && (args.iterations === undefined || frame < args.iterations); frame++) {
    if (frame > 0) await pause(args.intervalMs, signal);
    if (signal.aborted) break;
    const rows = await admin.consumerProgress(args.group);
    const at = Date.now();
    const offsets = new Map(rows.map((r) => [`${r.topic}/${r.brokerName}/${r.queueId}`, r.consumerOffset]));
    const tps = (key: string, offset: number): number => {
      const before = previous?.offsets.get(key);
      if (!previous || before === undefined || at <= previous.at) return 0;
      return Math.max(0, Math.round(((offset - before) * 1000) / (at - previous.at)));
    };
    const queues = rows.map((r) => ({ ...r, tps: tps(`${r.topic}/${r.brokerName}/${r.queueId}`, r.consumerOffset) }));
    previous = { at, offsets };
    const totalLag = queues.reduce((n, q) => n + q.lag, 0);
    const totalTps = queues.reduce((n, q) => n + q.tps, 0);
    if (out.json) {
      out.line(JSON.stringify({ group: args.group, at, lag: totalLag, tps: totalTps, queues }));
      continue;
    }
    const owners = new Set(queues.map((q) => q.clientId).filter((c) => c));
    const header = `mqkit top  group ${args.group}  ${new Date(at).toISOString()}  lag ${totalLag}  ${totalTps} msg/s  ${owners.size} members  (every ${args.intervalMs} ms, Ctrl-C quits)`;
    const table = renderTable(
      ['topic', 'broker', 'queue', 'owner', 'lag', 'msg/s', 'consumerOffset'],
      queues.map((q) => [q.topic, q.brokerName, q.queueId, q.clientId ?? '-', q.lag, q.tps, q.consumerOffset]),
    );
    out.line(`${tty ? CLEAR : ''}${header}\n${table}`);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
