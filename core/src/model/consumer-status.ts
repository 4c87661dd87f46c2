import type { ConsumeMode } from './constants';
import type { MessageQueue } from './message-queue';

/** 'active' until released or stopped, 'draining' while its running handler calls finish, 'dropped' once removed. */
export type ProcessQueueState = 'active' | 'draining' | 'dropped';

/** One topic's figures in a consumer's status (GET_CONSUMER_RUNNING_INFO's statusTable). */
export interface TopicStatsReport {
  readonly topic: string;
  /** ms per FOUND pull, over about the last minute. */
  readonly pullRT: number;
  /** Messages pulled per second. */
  readonly pullTPS: number;
  /** ms per handler call. */
  readonly consumeRT: number;
  readonly consumeOKTPS: number;
  readonly consumeFailedTPS: number;
  /** Messages whose call failed, in about the last hour. */
  readonly consumeFailedMsgs: number;
}

export interface QueueStatus {
  readonly mq: MessageQueue;
  readonly state: ProcessQueueState;
  readonly cachedCount: number;
  readonly cachedBytes: number;
  readonly nextOffset: number;
  /** The offset that may be committed: every message below it finished. */
  readonly committableOffset: number;
  /** @deprecated the same value as committableOffset, under its former name (it was never a committed value). */
  readonly committedOffset: number;
  /** The last committable offset the offset store acknowledged as written; -1 before the first persist. */
  readonly persistedOffset: number;
  /** The broker's max offset at the last pull; -1 before the first answer. */
  readonly maxOffset: number;
  /** maxOffset - committableOffset. */
  readonly lag: number;
  readonly inflight: number;
  /** When the last pull answer came, ms since the epoch (from the queue's creation until then). */
  readonly lastPullTimestamp: number;
  /** When the last handler call finished, to a tenth of a second (from the queue's creation until then). */
  readonly lastConsumeTimestamp: number;
}

export interface ConsumerStatus {
  readonly group: string;
  readonly clientId: string;
  readonly state: 'new' | 'running' | 'stopping' | 'stopped';
  /** Running and at least one balanced rebalance pass done (a topic without a route counts as balanced). */
  readonly ready: boolean;
  /**
   * Subscribed topics that have no route (not created yet): the group owns none of their queues, looks them up
   * every `profile.unroutedLookupMs`, and a topic created later is read from its start (docs/consumers.md, "Where
   * a new group starts"). Wire names (with the namespace); never the retry topic, which the broker creates at the
   * group's first heartbeat to a broker of its topics.
   */
  readonly unroutedTopics: readonly string[];
  readonly paused: boolean;
  readonly strategy: string;
  readonly queues: readonly QueueStatus[];
  readonly lag: number;
  readonly inFlight: number;
  readonly peakInFlight: number;
  readonly queuedTasks: number;
  readonly lastError: { readonly where: string; readonly message: string; readonly at: number } | undefined;
  readonly consumeMode: ConsumeMode;
  readonly consumeThreadMin: number;
  /** Pull and consume rates per topic over about the last minute, failures over the last hour (RocketMQ's ConsumeStatus). */
  readonly topics: readonly TopicStatsReport[];
}

/** What releasing one queue did. */
export interface ReleaseReport {
  readonly mq: MessageQueue;
  /** The offset committed for the queue. */
  readonly offset: number;
  /** True when every running handler call finished before the deadline. */
  readonly drained: boolean;
  /** Handler calls still running at the deadline (their messages will be consumed again). */
  readonly abandoned: number;
  readonly durationMs: number;
}

export interface StopReport {
  readonly clientId: string;
  readonly elapsedMs: number;
  /** True when every queue drained before the timeout. */
  readonly drained: boolean;
  readonly consumers: ReadonlyArray<{ readonly group: string; readonly queues: readonly ReleaseReport[] }>;
}

/** True when `value` looks like a ConsumerStatus (BrokerCallbacks.runningInfo is typed `unknown` at the SPI). */
export function isConsumerStatus(value: unknown): value is ConsumerStatus {
  const v = value as Partial<ConsumerStatus> | null | undefined;
  return typeof v === 'object' && v !== null && typeof v.group === 'string' && Array.isArray(v.queues);
}
