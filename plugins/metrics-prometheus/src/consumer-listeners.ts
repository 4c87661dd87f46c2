import { PullStatus, isRetryTopic, withoutNamespace, type EventBus, type MqkitEvents } from '@mqkit/core';
import type { MqkitMetrics } from './mqkit-metrics';
import { SeriesCache } from './series-cache';

/**
 * Feeds a client's consumer events into the metrics; returns the unsubscribe. Groups and queue topics arrive as
 * the broker names them and are labelled as the application does (namespace left out). Core emits
 * consumer.consume and consumer.pull only while someone listens: these listeners are what turns them on.
 */
export function listenToConsumers(events: EventBus, namespace: string | undefined, metrics: MqkitMetrics): () => void {
  const labels = (group: string, topic: string) => ({
    consumer_group: withoutNamespace(namespace, group),
    topic: withoutNamespace(namespace, topic),
  });
  const consumed = new SeriesCache((group, topic) => {
    const l = labels(group, topic);
    return {
      success: metrics.consumedMessages.labels({ ...l, result: 'success' }),
      failure: metrics.consumedMessages.labels({ ...l, result: 'failure' }),
      timeOk: metrics.processTime.labels({ ...l, invocation_status: 'success' }),
      timeFailed: metrics.processTime.labels({ ...l, invocation_status: 'failure' }),
    };
  });
  const pulls = new SeriesCache((group, topic) => {
    const l = labels(group, topic);
    const byStatus = new Map(
      Object.values(PullStatus).map((status) => [status, metrics.pullLatency.labels({ ...l, pull_status: status })]),
    );
    return (status: PullStatus) => byStatus.get(status)!;
  });
  // Failures are labelled with the message's own topic (a retried message shows it, not %RETRY%<group>).
  const failures = new SeriesCache((group, topic) => {
    const l = { consumer_group: withoutNamespace(namespace, group), topic };
    return {
      broker: metrics.retriedMessages.labels({ ...l, mode: 'broker' }),
      local: metrics.retriedMessages.labels({ ...l, mode: 'local' }),
      dlq: metrics.dlqMessages.labels(l),
    };
  });

  const onRebalance = (e: MqkitEvents['consumer.rebalance']) => {
    metrics.rebalances.inc(labels(e.group, e.topic));
    // Series exist from the first rebalance on, at zero: rate() then counts the first message too.
    const c = consumed.get(e.group, e.topic);
    c.success.inc(0);
    c.failure.inc(0);
    if (isRetryTopic(e.topic)) return;
    const f = failures.get(e.group, withoutNamespace(namespace, e.topic));
    f.broker.inc(0);
    f.local.inc(0);
    f.dlq.inc(0);
  };
  const onConsume = (e: MqkitEvents['consumer.consume']) => {
    const c = consumed.get(e.group, e.mq.topic);
    if (e.ok > 0) c.success.inc(e.ok);
    if (e.failed > 0) c.failure.inc(e.failed);
    (e.failed > 0 ? c.timeFailed : c.timeOk).observe(e.durationMs / 1000);
  };
  const onPull = (e: MqkitEvents['consumer.pull']) => {
    pulls
      .get(
        e.group,
        e.mq.topic,
      )(e.status)
      .observe(e.durationMs / 1000);
  };
  const onRetry = (e: MqkitEvents['consumer.retry']) => {
    const f = failures.get(e.group, e.topic);
    (e.local ? f.local : e.deadLetter ? f.dlq : f.broker).inc();
  };
  const offs = [
    events.on('consumer.rebalance', onRebalance),
    events.on('consumer.consume', onConsume),
    events.on('consumer.pull', onPull),
    events.on('consumer.retry', onRetry),
  ];
  return () => {
    for (const off of offs) off();
  };
}
