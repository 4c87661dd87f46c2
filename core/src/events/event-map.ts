import type { MessageQueue } from '../model/message-queue';
import type { PullStatus } from '../model/pull-result';

/**
 * Every event mqkit emits, by `<area>.<event>` name. Plugins add their own by declaration merging:
 *
 * ```ts
 * declare module '@mqkit/core' {
 *   interface MqkitEvents { 'offset-store.error': { store: string; error: Error } }
 * }
 * ```
 */
export interface MqkitEvents {
  'consumer.started': { group: string; clientId: string };
  'consumer.stopped': { group: string; clientId: string };
  /**
   * A group's first balanced rebalance pass ended: every queue allocated to it is taken and pulled. Once per start;
   * `passes` counts the passes it took (more than 1 when a lock was refused or a route was still arriving).
   */
  'consumer.ready': { group: string; clientId: string; passes: number };
  /**
   * A subscribed topic has no route: not created yet (a consumer deployed before its producers), or every broker
   * of it gone. Once per topic until it has a route again; meanwhile it is looked up every
   * `profile.unroutedLookupMs` and listed in `status().unroutedTopics`. Not an error: the group is still ready.
   */
  'consumer.topic-missing': { group: string; clientId: string; topic: string };
  /**
   * A topic `consumer.topic-missing` reported has a route now; `missingMs` since it was reported. Its queues are
   * allocated at once; those that did not exist at the group's first lookup are read from offset 0 when the
   * group has no offset there (docs/consumers.md#where-a-new-group-starts).
   */
  'consumer.topic-routed': {
    group: string;
    clientId: string;
    topic: string;
    queues: readonly MessageQueue[];
    missingMs: number;
  };
  /** One rebalance pass that changed what this member owns for a topic. */
  'consumer.rebalance': {
    group: string;
    clientId: string;
    topic: string;
    strategy: string;
    cidAll: readonly string[];
    mqAll: readonly MessageQueue[];
    allocated: readonly MessageQueue[];
    added: readonly MessageQueue[];
    removed: readonly MessageQueue[];
  };
  /** One pull answer; `durationMs` from the request to the answer (a held long poll included, as RocketMQ's pull RT). */
  'consumer.pull': {
    group: string;
    mq: MessageQueue;
    status: PullStatus;
    found: number;
    nextOffset: number;
    maxOffset: number;
    durationMs: number;
  };
  'consumer.consume': {
    group: string;
    mq: MessageQueue;
    count: number;
    ok: number;
    failed: number;
    durationMs: number;
  };
  'consumer.commit': { group: string; mq: MessageQueue; offset: number };
  /**
   * A message handed back to the broker for a later retry (or to the DLQ past maxReconsumeTimes), or kept for a
   * local retry (`local`). `deadLetter`: the broker dead-letters it (`delayLevel < 0`, or its stored reconsumeTimes
   * reached maxReconsumeTimes, the broker's rule in consumerSendMsgBack).
   */
  'consumer.retry': {
    group: string;
    msgId: string;
    topic: string;
    reconsumeTimes: number;
    delayLevel: number;
    local: boolean;
    deadLetter: boolean;
  };
  /** A failure a consumer recovered from or reported; `where` names the stage. */
  'consumer.error': { group: string; where: string; error: Error; mq?: MessageQueue };
  /** A released queue finished draining (or hit its bound). */
  'consumer.queue-released': {
    group: string;
    mq: MessageQueue;
    offset: number;
    drained: boolean;
    abandoned: number;
    durationMs: number;
  };
  /** Pulling paused by the user (`pause()`) or by the offset store's backpressure. */
  'consumer.paused': { group: string; reason: 'user' | 'offset-store' };
  'consumer.resumed': { group: string; reason: 'user' | 'offset-store' };
  /** A send the broker answered; `durationMs` from the call (retries included). */
  'producer.send': {
    group: string;
    topic: string;
    mq: MessageQueue;
    msgId: string;
    attempts: number;
    durationMs: number;
  };
  /** An attempt that failed (the send may still succeed on a retry); `durationMs` of that attempt. */
  'producer.error': { group: string; topic: string; error: Error; attempt: number; durationMs?: number };
  /** A reply nobody waits for any more (its request timed out) or never did: dropped. */
  'producer.reply-dropped': { group: string; correlationId: string; topic: string };
  /** A reply handler (`reply: true`) answered a request; `sent` is false when the reply could not be sent. */
  'consumer.reply': { group: string; correlationId: string; replyTo: string; sent: boolean };
  'offset-store.error': { store: string; group: string; error: Error };
  /**
   * Message trace records lost: the trace queue was full (`queue-full`), the client was stopping (`stopped`), or their
   * trace message failed after its retries (`send-failed`, with the error). `dropped` and `failed` are the totals so far.
   */
  'trace.dropped': {
    producerGroup: string;
    traceTopic: string;
    reason: 'queue-full' | 'stopped' | 'send-failed';
    contexts: number;
    dropped: number;
    failed: number;
    error?: Error;
  };
}

export type MqkitEventName = keyof MqkitEvents;
export type MqkitListener<K extends MqkitEventName> = (payload: MqkitEvents[K]) => void;

/**
 * One event of the stream `events$` gives: its name as `type` and its payload, a discriminated union over every
 * event (plugins' included), so checking `type` narrows `payload`. `MqkitEvent<'consumer.error'>` is one event;
 * `MqkitEvent<'consumer.pull' | 'consumer.consume'>` is either of two.
 */
export type MqkitEvent<K extends MqkitEventName = MqkitEventName> = {
  [P in K]: { readonly type: P; readonly payload: MqkitEvents[P] };
}[K];
