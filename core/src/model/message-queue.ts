/** A RocketMQ message queue: one queue of one topic on one broker. */
export interface MessageQueue {
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
}

/** A stable string key for maps; the NUL separator cannot occur in topic or broker names. */
export function mqKey(mq: MessageQueue): string {
  return `${mq.topic}\u0000${mq.brokerName}\u0000${mq.queueId}`;
}

/** The readable form used in logs and events: `topic@brokerName#queueId`. */
export function mqLabel(mq: MessageQueue): string {
  return `${mq.topic}@${mq.brokerName}#${mq.queueId}`;
}

/**
 * RocketMQ's MessageQueue.compareTo: topic, then brokerName, then queueId. JavaScript's `<` on strings compares
 * UTF-16 code units, exactly like Java's String.compareTo (never use localeCompare here).
 */
export function compareMessageQueues(a: MessageQueue, b: MessageQueue): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  if (a.brokerName !== b.brokerName) return a.brokerName < b.brokerName ? -1 : 1;
  return a.queueId - b.queueId;
}

/** Java's natural String order (UTF-16 code units), used to sort consumer ids before allocation. */
export function compareJavaStrings(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

export function sameQueue(a: MessageQueue, b: MessageQueue): boolean {
  return a.queueId === b.queueId && a.topic === b.topic && a.brokerName === b.brokerName;
}
