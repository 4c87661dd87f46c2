import type { MessageQueue, OutgoingRecord } from '@mqkit/core';

/**
 * When the broker asks a producer about a half message (RocketMQ's BrokerConfig names): first
 * transactionTimeOutMs after it was stored, then every transactionCheckIntervalMs, transactionCheckMax times at
 * most. RocketMQ's defaults: 6 s, 30 s, 15.
 */
export interface TransactionSettings {
  readonly transactionTimeOutMs: number;
  readonly transactionCheckIntervalMs: number;
  readonly transactionCheckMax: number;
}

export const DEFAULT_TRANSACTION_SETTINGS: TransactionSettings = {
  transactionTimeOutMs: 6_000,
  transactionCheckIntervalMs: 30_000,
  transactionCheckMax: 15,
};

export interface HalfMessage {
  readonly id: string;
  readonly producerGroup: string;
  readonly mq: MessageQueue;
  readonly record: OutgoingRecord;
  readonly bornHost: string;
  readonly storedAt: number;
  checks: number;
  checking: boolean;
}

export type HalfOutcome = 'COMMIT_MESSAGE' | 'ROLLBACK_MESSAGE' | 'UNKNOW';

/**
 * RocketMQ's half-message store (RMQ_SYS_TRANS_HALF_TOPIC with its op topic): messages of open transactions,
 * invisible to consumers until committed; a periodic check asks a live producer of the group about those older
 * than the transaction timeout, and after the check limit drops them (RocketMQ moves them to
 * TRANS_CHECK_MAX_TIME_TOPIC, which consumers never read).
 */
export class HalfMessages {
  private readonly open = new Map<string, HalfMessage>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly settings: TransactionSettings,
    /** Asks a live producer of the group; undefined when none answered. */
    private readonly ask: (half: HalfMessage) => Promise<HalfOutcome | undefined>,
    /** Applies a commit (append to the real queue) or a rollback, and records a discard. */
    private readonly end: (half: HalfMessage, outcome: 'COMMIT_MESSAGE' | 'ROLLBACK_MESSAGE' | 'DISCARD') => void,
  ) {
    this.timer = setInterval(() => void this.check(), Math.max(1, settings.transactionCheckIntervalMs));
    this.timer.unref();
  }

  get size(): number {
    return this.open.size;
  }

  add(half: Omit<HalfMessage, 'checks' | 'checking'>): void {
    this.open.set(half.id, { ...half, checks: 0, checking: false });
  }

  /** END_TRANSACTION: false when no such half message is open (already ended, or discarded). */
  finish(id: string, producerGroup: string, outcome: HalfOutcome): boolean {
    const half = this.open.get(id);
    if (!half || half.producerGroup !== producerGroup) return false;
    if (outcome === 'UNKNOW') return true;
    this.open.delete(id);
    this.end(half, outcome);
    return true;
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async check(now = Date.now()): Promise<void> {
    for (const half of [...this.open.values()]) {
      if (half.checking || now - half.storedAt < this.settings.transactionTimeOutMs) continue;
      if (half.checks >= this.settings.transactionCheckMax) {
        this.open.delete(half.id);
        this.end(half, 'DISCARD');
        continue;
      }
      half.checks++;
      half.checking = true;
      try {
        const outcome = await this.ask(half);
        if (outcome && outcome !== 'UNKNOW') this.finish(half.id, half.producerGroup, outcome);
      } catch {
        // No producer answered: the next check asks again.
      } finally {
        half.checking = false;
      }
    }
  }
}
