import { every } from '../util/periodic';

const TICK_MS = 1_000;

/**
 * Notices that the process was frozen: a 1 s tick that comes `thresholdMs` late (SIGSTOP, a paused VM, a swap
 * storm). Longer than the broker's channel expiry, the group went on without this member: its cached messages and
 * in-memory positions are stale, and consuming them would duplicate what others consumed meanwhile.
 */
export class StallWatch {
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly thresholdMs: number,
    private readonly onStall: (frozenMs: number) => void,
    private readonly signal: AbortSignal,
  ) {}

  start(): void {
    let last = Date.now();
    this.loop = every(
      TICK_MS,
      () => {
        const now = Date.now();
        const late = now - last - TICK_MS;
        last = now;
        if (late >= this.thresholdMs) this.onStall(late + TICK_MS);
      },
      this.signal,
      () => undefined,
    );
  }

  stopped(): Promise<void> {
    return this.loop;
  }
}
