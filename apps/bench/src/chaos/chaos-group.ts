import type { ChildProcess } from 'node:child_process';
import { runNodeChild, type BenchChild } from '../cases/bench-process';
import type { DeliveryLog } from './delivery-log';

export type ChaosClient = 'mqkit' | 'java';

export interface MemberSettings {
  readonly namesrvAddr: string;
  readonly topic: string;
  readonly group: string;
  readonly heartbeatMs: number;
  readonly store: 'broker' | 'redis';
  readonly redisUrl?: string;
  readonly exclusiveHandoff?: boolean;
  /** CONCURRENTLY (mqkit's default, Java's MessageListenerConcurrently) or ORDERLY (MessageListenerOrderly). */
  readonly consumeMode: 'CONCURRENTLY' | 'ORDERLY';
  /** Members also report errors and rebalances ("E <epoch ms> <text>" lines), kept in `notes`. */
  readonly trace?: boolean;
}

/** Runs Java bench programs (see bench-process.ts javaRunner). */
export interface JavaRunner {
  run(mainClass: string, args: readonly string[], timeoutMs: number, onLine?: (line: string) => void): BenchChild;
}

interface Member {
  readonly process: ChildProcess;
  readonly ready: Promise<void>;
  delivered: number;
}

/**
 * The members of one scenario run, each a child process of the same client (mqkit's chaos-member.child.cjs or
 * Java's ChaosMember), reporting every delivery into one log. Faults act on members by index: SIGKILL, SIGSTOP,
 * SIGCONT; close() ends the rest with SIGTERM (a clean stop), then SIGKILL.
 */
export class ChaosGroup {
  private readonly members: Member[] = [];
  /** With tracing on: every "E" line of every member, as [member, epoch ms, text]. */
  readonly notes: [number, number, string][] = [];

  constructor(
    private readonly client: ChaosClient,
    private readonly settings: MemberSettings,
    private readonly log: DeliveryLog,
    private readonly java: JavaRunner | undefined,
  ) {}

  /** Starts one more member; resolves with its index once it reported READY. */
  async add(): Promise<number> {
    let markReady!: () => void;
    let failed!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failed = reject;
    });
    const index = this.members.length;
    const onLine = (line: string): void => {
      if (line === 'READY') markReady();
      else if (line.startsWith('D ')) {
        this.log.record(line, index);
        this.members[index]!.delivered++;
      } else if (line.startsWith('E ')) {
        const space = line.indexOf(' ', 2);
        this.notes.push([index, Number(line.slice(2, space)), line.slice(space + 1)]);
      }
    };
    const child =
      this.client === 'mqkit'
        ? runNodeChild('chaos-member.child.cjs', { ...this.settings }, { timeoutMs: 30 * 60_000, onLine })
        : this.java!.run(
            'ChaosMember',
            [
              this.settings.namesrvAddr,
              this.settings.topic,
              this.settings.group,
              String(this.settings.heartbeatMs),
              this.settings.consumeMode,
            ],
            30 * 60_000,
            onLine,
          );
    // Members print no RESULT line: an exit before READY is a failure, any exit after it is the scenario's doing.
    child.result.catch(() => undefined);
    child.process.once('exit', (code, signal) =>
      failed(new Error(`${this.client} member ${index} exited before it was ready (${code ?? signal})`)),
    );
    this.members.push({ process: child.process, ready, delivered: 0 });
    await ready;
    return index;
  }

  /** Deliveries each member reported. */
  deliveredBy(): number[] {
    return this.members.map((m) => m.delivered);
  }

  kill(index: number): void {
    this.members[index]!.process.kill('SIGKILL');
  }

  pause(index: number): void {
    this.members[index]!.process.kill('SIGSTOP');
  }

  resume(index: number): void {
    this.members[index]!.process.kill('SIGCONT');
  }

  async close(): Promise<void> {
    const alive = this.members.filter((m) => m.process.exitCode === null && m.process.signalCode === null);
    const exits = alive.map((m) => new Promise<void>((resolve) => m.process.once('exit', () => resolve())));
    for (const m of alive) {
      m.process.kill('SIGCONT');
      m.process.kill('SIGTERM');
    }
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 15_000))]);
    for (const m of alive) if (m.process.exitCode === null && m.process.signalCode === null) m.process.kill('SIGKILL');
  }
}
