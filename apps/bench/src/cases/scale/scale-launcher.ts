import type { BenchChild } from '../bench-process';
import { runNodeChild } from '../bench-process';

/**
 * Starts the child processes of `npm run bench -- scale` for either client with one interface: mqkit-scale.child.cjs
 * (mqkit) and ScaleMember / ScaleGroups (RocketMQ's Java client) take the same inputs and print the same lines.
 */

export type Side = 'mqkit' | 'java';
export const SIDES: readonly Side[] = ['mqkit', 'java'];

/** A member's latest "ALLOC" line for one topic: when its owned queues of the topic last changed, and to what. */
export interface Allocation {
  readonly at: number;
  readonly topic: string;
  readonly members: number;
  readonly queues: readonly string[];
}

export interface JavaRunner {
  run(mainClass: string, args: readonly string[], timeoutMs: number, onLine?: (line: string) => void): BenchChild;
}

/** What the backlog programs print (RESULT line). */
export interface BacklogRun {
  readonly ok: boolean;
  readonly received: number;
  readonly expected: number;
  readonly elapsedMs: number;
  readonly firstMessageMs: number;
  readonly fromMs: number;
  readonly toMs: number;
  readonly peakRssKib: number;
}

/** A running child printing `TAG {json}` lines (STARTING, ALLOC, GROUP, FIRST, ...); stop() ends it with SIGTERM (clean), SIGKILL after 10 s. */
export class LineChild {
  /** Latest allocation per topic (member mode). */
  readonly latest = new Map<string, Allocation>();
  /** When the parent spawned it (epoch ms, this machine's clock, as the child's time stamps). */
  readonly spawnedAt = Date.now();
  /** Each group's first message (groups mode), in arrival order. */
  readonly groupFirstAts: number[] = [];
  /** The latest line of every other tag (STARTING, FIRST, MEMORY, DIAGNOSED, ...), parsed. */
  readonly lines = new Map<string, Record<string, unknown>>();
  private readonly exited: Promise<void>;
  readonly child: BenchChild;

  constructor(start: (onLine: (line: string) => void) => BenchChild) {
    this.child = start((line) => this.onLine(line));
    // These children print no RESULT line: their exit is awaited, not parsed.
    this.child.result.catch(() => undefined);
    this.exited = new Promise((resolve) => this.child.process.once('close', () => resolve()));
  }

  get pid(): number {
    return this.child.process.pid!;
  }

  get alive(): boolean {
    return this.child.process.exitCode === null && this.child.process.signalCode === null;
  }

  /** Queues owned over all topics, by the latest lines. */
  owned(): number {
    let n = 0;
    for (const a of this.latest.values()) n += a.queues.length;
    return n;
  }

  async stop(): Promise<void> {
    if (this.alive) this.child.process.kill('SIGTERM');
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (this.alive) {
      this.child.process.kill('SIGKILL');
      await this.exited;
    }
  }

  /** When the child called start() (member mode). */
  get startingAt(): number | undefined {
    return this.lines.get('STARTING')?.at as number | undefined;
  }

  /** When every group had handled its first message (groups mode). */
  get firstAt(): number | undefined {
    return this.lines.get('FIRST')?.at as number | undefined;
  }

  private onLine(line: string): void {
    const match = /^([A-Z]+) (\{.*\})$/.exec(line);
    if (!match) return; // the client libraries' own output
    const body = JSON.parse(match[2]!) as Record<string, unknown>;
    if (match[1] === 'ALLOC') this.latest.set(body.topic as string, body as unknown as Allocation);
    else if (match[1] === 'GROUP') this.groupFirstAts.push(body.at as number);
    else this.lines.set(match[1]!, body);
  }
}

export class ScaleLauncher {
  constructor(
    private readonly namesrvAddr: string,
    private readonly java: JavaRunner,
  ) {}

  /**
   * A group member on `topics` that runs until stopped. mqkit only, for the diagnosis: with `diagnoseDir`, SIGUSR2
   * profiles it; `nodeOptions` (e.g. a V8 heap flag) go to its NODE_OPTIONS.
   */
  member(
    side: Side,
    group: string,
    topics: readonly string[],
    diagnose: { dir?: string; nodeOptions?: string } = {},
  ): LineChild {
    const timeoutMs = 30 * 60_000; // a safety net only: stop() ends it
    return new LineChild((onLine) => {
      if (side === 'java')
        return this.java.run('ScaleMember', ['member', this.namesrvAddr, group, topics.join(',')], timeoutMs, onLine);
      // runNodeChild spawns at once with this process's environment: NODE_OPTIONS is set for that call only.
      const saved = process.env.NODE_OPTIONS;
      if (diagnose.nodeOptions) process.env.NODE_OPTIONS = diagnose.nodeOptions;
      try {
        return runNodeChild(
          'mqkit-scale.child.cjs',
          { mode: 'member', namesrvAddr: this.namesrvAddr, group, topics, diagnoseDir: diagnose.dir },
          { timeoutMs, onLine },
        );
      } finally {
        if (saved === undefined) delete process.env.NODE_OPTIONS;
        else process.env.NODE_OPTIONS = saved;
      }
    });
  }

  /** A fresh group reading the backlog of `topics`; resolves with its RESULT. */
  async backlog(
    side: Side,
    group: string,
    topics: readonly string[],
    expected: number,
    marks: { from: number; to: number },
    timeoutSec: number,
  ): Promise<BacklogRun> {
    const timeoutMs = (timeoutSec + 60) * 1000;
    const child =
      side === 'mqkit'
        ? runNodeChild(
            'mqkit-scale.child.cjs',
            {
              mode: 'backlog',
              namesrvAddr: this.namesrvAddr,
              group,
              topics,
              expected,
              ...marks,
              timeoutMs: timeoutSec * 1000,
            },
            { timeoutMs },
          )
        : this.java.run(
            'ScaleMember',
            [
              'backlog',
              this.namesrvAddr,
              group,
              topics.join(','),
              String(expected),
              String(marks.from),
              String(marks.to),
              String(timeoutSec),
            ],
            timeoutMs,
          );
    return (await child.result) as unknown as BacklogRun;
  }

  /** Many groups in one process, the i-th on the i-th topic, running until stopped. */
  groups(side: Side, groups: readonly { group: string; topic: string }[]): LineChild {
    const timeoutMs = 10 * 60_000;
    return new LineChild((onLine) =>
      side === 'mqkit'
        ? runNodeChild(
            'mqkit-scale.child.cjs',
            { mode: 'groups', namesrvAddr: this.namesrvAddr, groups },
            { timeoutMs, onLine },
          )
        : this.java.run(
            'ScaleGroups',
            [this.namesrvAddr, groups.map((g) => g.group).join(','), groups.map((g) => g.topic).join(',')],
            timeoutMs,
            onLine,
          ),
    );
  }
}
