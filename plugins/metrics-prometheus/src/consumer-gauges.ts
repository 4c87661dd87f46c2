import { withoutNamespace, type QueueStatus } from '@mqkit/core';
import type { Gauge } from 'prom-client';
import type { ScrapedClient } from './scraped-client';

type GroupTopicGauge = Gauge<'consumer_group' | 'topic'>;
type QueueGauge = Gauge<'consumer_group' | 'topic' | 'broker_name' | 'queue_id'>;

/** How long a scrape waits for the brokers' max offsets before it reports what the last pulls said. */
export const MAX_OFFSET_DEADLINE_MS = 3_000;

/**
 * Sets `gauge` to one figure of the owned queues summed per group and topic (RocketMQ's cached-messages gauges
 * are per topic, not per queue). Reset first: a queue released since the last scrape must not linger.
 */
export function sumQueues(
  gauge: GroupTopicGauge,
  clients: Iterable<ScrapedClient>,
  figure: (q: QueueStatus) => number,
): void {
  gauge.reset();
  for (const client of clients) {
    for (const consumer of client.consumers()) {
      const group = withoutNamespace(client.namespace, consumer.group);
      const sums = new Map<string, number>();
      for (const q of consumer.queues) sums.set(q.mq.topic, (sums.get(q.mq.topic) ?? 0) + figure(q));
      for (const [topic, value] of sums)
        gauge.set({ consumer_group: group, topic: withoutNamespace(client.namespace, topic) }, value);
    }
  }
}

/**
 * Lag per active queue: the broker's max offset minus the offset that may be committed. The max offset a queue
 * saw at its last pull goes stale exactly when lag matters (a paused or flow-controlled consumer pulls nothing),
 * so a scrape asks the broker (GET_MAX_OFFSET, one per queue, in parallel) and falls back to the last pull's
 * figure when the broker does not answer in time. Queues being released are left to their next owner.
 */
export async function collectLag(
  gauge: QueueGauge,
  clients: Iterable<ScrapedClient>,
  deadlineMs = MAX_OFFSET_DEADLINE_MS,
): Promise<void> {
  const rows: {
    labels: Record<'consumer_group' | 'topic' | 'broker_name' | 'queue_id', string>;
    lag: Promise<number>;
  }[] = [];
  for (const client of clients) {
    for (const consumer of client.consumers()) {
      const group = withoutNamespace(client.namespace, consumer.group);
      for (const q of consumer.queues) {
        if (q.state !== 'active' || q.committableOffset < 0) continue;
        const labels = {
          consumer_group: group,
          topic: withoutNamespace(client.namespace, q.mq.topic),
          broker_name: q.mq.brokerName,
          queue_id: String(q.mq.queueId),
        };
        rows.push({
          labels,
          lag: currentMax(client, q, deadlineMs).then((max) => Math.max(0, max - q.committableOffset)),
        });
      }
    }
  }
  const lags = await Promise.all(rows.map((r) => r.lag));
  gauge.reset();
  for (const [i, row] of rows.entries()) gauge.set(row.labels, lags[i]!);
}

/** The broker's max offset now, or the last pull's (0 before any) when it cannot be had within the deadline. */
async function currentMax(client: ScrapedClient, q: QueueStatus, deadlineMs: number): Promise<number> {
  const lastPull = Math.max(q.maxOffset, 0);
  if (!client.maxOffset) return lastPull;
  const asked = await withinDeadline(client.maxOffset(q.mq), deadlineMs);
  return asked === undefined ? lastPull : Math.max(asked, lastPull);
}

/** The promise's value, or undefined when it rejects or takes longer than `ms` (a scrape must not hang on a broker). */
function withinDeadline<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  // A failed ask is not an error of the scrape: the last pull's figure stands in, as for a late one.
  const settled = promise.then(
    (value) => value,
    () => undefined,
  );
  return Promise.race([settled, deadline]).finally(() => clearTimeout(timer));
}
