import { filter, lastValueFrom, map, pairwise, startWith, tap } from 'rxjs';
import { ticks } from '../util/periodic';

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
    const lateness = ticks(TICK_MS, this.signal).pipe(
      map(() => Date.now()),
      startWith(Date.now()),
      pairwise(),
      map(([previous, now]) => now - previous - TICK_MS),
      filter((late) => late >= this.thresholdMs),
      tap((late) => this.onStall(late + TICK_MS)),
    );
    this.loop = lastValueFrom(lateness, { defaultValue: undefined }).then(() => undefined);
  }

  stopped(): Promise<void> {
    return this.loop;
  }
}
