import { MessageConst } from '@mqkit/core';

/**
 * RocketMQ 5's timer messages (TimerMessageStore, fed by HookUtils.transformTimerMessage): a message with
 * TIMER_DELIVER_MS, TIMER_DELAY_MS or TIMER_DELAY_SEC is held until it falls due, then appended to its queue, which
 * wakes held pulls as any new message does. Delays are multiplied by the broker's time scale.
 */
export class TimerWheel {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly scale: number) {}

  /** When the message falls due (epoch ms), from its timer property; undefined when it has none. NaN when malformed. */
  static deliverAt(properties: Readonly<Record<string, string>>, now = Date.now()): number | undefined {
    const sec = properties[MessageConst.TIMER_DELAY_SEC];
    if (sec !== undefined) return now + Number(sec) * 1000;
    const ms = properties[MessageConst.TIMER_DELAY_MS];
    if (ms !== undefined) return now + Number(ms);
    const at = properties[MessageConst.TIMER_DELIVER_MS];
    return at === undefined ? undefined : Number(at);
  }

  schedule(dueMs: number, deliver: () => void, now = Date.now()): void {
    this.arm(now + Math.max(0, (dueMs - now) * this.scale), deliver);
  }

  /** Node's timers may fire a millisecond before Date.now() reaches the due time: never deliver early. */
  private arm(at: number, deliver: () => void): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (Date.now() < at) this.arm(at, deliver);
        else deliver();
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref();
    this.timers.add(timer);
  }

  get pending(): number {
    return this.timers.size;
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
