/**
 * RocketMQ's LatencyFaultTolerance (5.1.4+, RIP-63): each send's latency (or failure) marks its broker
 * unavailable for a while. Latency thresholds and durations are RocketMQ's tables; an error isolates the broker as
 * a 10 s latency would (10 s). An update only ever extends "not available until".
 */
const LATENCY_MAX_MS = [50, 100, 550, 1800, 3000, 5000, 15000] as const;
const NOT_AVAILABLE_MS = [0, 0, 2000, 5000, 6000, 10000, 30000] as const;
const ISOLATION_LATENCY_MS = 10_000;

interface FaultItem {
  notAvailableUntil: number;
  reachable: boolean;
}

export class LatencyFaultTolerance {
  private readonly items = new Map<string, FaultItem>();

  /** Duration from RocketMQ's table for a measured latency: the highest threshold it reaches. */
  static durationFor(latencyMs: number): number {
    for (let i = LATENCY_MAX_MS.length - 1; i >= 0; i--)
      if (latencyMs >= LATENCY_MAX_MS[i]!) return NOT_AVAILABLE_MS[i]!;
    return 0;
  }

  /** A send finished: success or error (isolate = true for transport failures and broker errors). */
  update(brokerName: string, latencyMs: number, isolate: boolean, reachable: boolean, now = Date.now()): void {
    const duration = LatencyFaultTolerance.durationFor(isolate ? ISOLATION_LATENCY_MS : latencyMs);
    const item = this.items.get(brokerName) ?? { notAvailableUntil: 0, reachable: true };
    item.notAvailableUntil = Math.max(item.notAvailableUntil, now + duration);
    item.reachable = reachable;
    this.items.set(brokerName, item);
  }

  isAvailable(brokerName: string, now = Date.now()): boolean {
    const item = this.items.get(brokerName);
    return !item || now >= item.notAvailableUntil;
  }

  isReachable(brokerName: string): boolean {
    return this.items.get(brokerName)?.reachable ?? true;
  }
}
