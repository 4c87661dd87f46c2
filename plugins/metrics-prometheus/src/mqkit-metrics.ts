import type { QueueStatus } from '@mqkit/core';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { collectLag, sumQueues } from './consumer-gauges';
import { BUCKETS, LABELS, METRIC_NAMES, type MetricKey } from './metric-names';
import type { ScrapedClient } from './scraped-client';

/**
 * What the plugin needs of a registry. Structural on purpose: a Registry of the application's own copy of
 * prom-client is accepted as it is (no `instanceof` against this package's copy, which may be another one).
 */
export type MetricsRegistry = Pick<Registry, 'registerMetric' | 'getSingleMetric'>;

const { consumerGroup, producerGroup, topic, result, invocationStatus, pullStatus, brokerName, queueId, mode, kind } =
  LABELS;

/**
 * The metrics of one `prometheusMetrics()` value, registered once on its registry and shared by every client the
 * value is registered with (a consumer app and a producer of one process). Counters and histograms are fed by the
 * clients' events and send hooks; gauges read the attached clients when scraped.
 */
export class MqkitMetrics {
  readonly consumedMessages;
  readonly processTime;
  readonly pullLatency;
  readonly rebalances;
  readonly retriedMessages;
  readonly dlqMessages;
  readonly sentMessages;
  readonly sendCostTime;
  private readonly clients = new Set<ScrapedClient>();

  constructor(registry: MetricsRegistry, prefix: string) {
    // prom-client only calls registerMetric on it; its types want its own class.
    const registers = [registry as Registry];
    const name = (key: MetricKey) => prefix + METRIC_NAMES[key];
    const clients = this.clients;
    const counter = <L extends string>(key: MetricKey, help: string, labelNames: L[]) =>
      new Counter<L>({ name: name(key), help, labelNames, registers });
    const histogram = <L extends string>(key: MetricKey & keyof typeof BUCKETS, help: string, labelNames: L[]) =>
      new Histogram<L>({ name: name(key), help, labelNames, buckets: [...BUCKETS[key]], registers });
    // Gauges read the attached clients' status at scrape time; nothing else holds them.
    const queueSum = (key: MetricKey, help: string, figure: (q: QueueStatus) => number) =>
      new Gauge({
        name: name(key),
        help,
        labelNames: [consumerGroup, topic],
        registers,
        collect() {
          sumQueues(this, clients, figure);
        },
      });

    this.consumedMessages = counter(
      'consumedMessages',
      'Messages whose handler call finished, by result (success, failure: retried or dead-lettered)',
      [consumerGroup, topic, result],
    );
    this.processTime = histogram(
      'processTime',
      'Duration of handler calls (one observation per call; a batch is one call)',
      [consumerGroup, topic, invocationStatus],
    );
    this.pullLatency = histogram('pullLatency', 'Pull request to answer, a long poll held by the broker included', [
      consumerGroup,
      topic,
      pullStatus,
    ]);
    queueSum('cachedMessages', 'Messages pulled and not yet finished', (q) => q.cachedCount);
    queueSum('cachedBytes', 'Body bytes of the messages pulled and not yet finished', (q) => q.cachedBytes);
    queueSum('inflightCalls', 'Handler calls running', (q) => q.inflight);
    new Gauge({
      name: name('queueLag'),
      help: "Per owned queue: the broker's max offset minus the offset that may be committed",
      labelNames: [consumerGroup, topic, brokerName, queueId],
      registers,
      collect() {
        return collectLag(this, clients);
      },
    });
    this.rebalances = counter('rebalances', 'Rebalance passes that changed which queues of a topic this member owns', [
      consumerGroup,
      topic,
    ]);
    this.retriedMessages = counter(
      'retriedMessages',
      'Failed messages handed on for a later delivery: mode broker (sent back, redelivered on %RETRY%<group>) or local (the send-back failed)',
      [consumerGroup, topic, mode],
    );
    this.dlqMessages = counter(
      'dlqMessages',
      'Failed messages sent back for the dead-letter queue %DLQ%<group> (past maxReconsumeTimes, or delay level -1)',
      [consumerGroup, topic],
    );
    this.sentMessages = counter(
      'sentMessages',
      'Messages of producer calls, by kind (send, oneway, batch, transaction, request) and result',
      [producerGroup, topic, kind, result],
    );
    this.sendCostTime = histogram(
      'sendCostTime',
      'Duration of producer calls, retries included (a request until its reply, a transaction until its local transaction ended)',
      [producerGroup, topic, kind, invocationStatus],
    );
  }

  /** Makes a client's consumers part of every scrape until the returned function is called. */
  attach(client: ScrapedClient): () => void {
    this.clients.add(client);
    return () => this.clients.delete(client);
  }
}
