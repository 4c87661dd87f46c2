import { ConfigurationError, Tokens, type MqkitPlugin } from '@mqkit/core';
import { register as defaultRegistry } from 'prom-client';
import { listenToConsumers } from './consumer-listeners';
import { METRIC_NAMES } from './metric-names';
import { MqkitMetrics, type MetricsRegistry } from './mqkit-metrics';
import { sendMetricsHook } from './send-metrics.hook';

export interface PrometheusMetricsOptions {
  /** Where the metrics are registered: a prom-client Registry, from any copy of prom-client 15. Default its global `register`. */
  readonly registry?: MetricsRegistry;
  /** Put before every metric name, e.g. `billing_` gives `billing_rocketmq_consumed_messages_total`. Default none. */
  readonly prefix?: string;
}

const SOURCE = 'prometheusMetrics';
// Prometheus' metric name syntax; the prefix must keep every name valid.
const PREFIX_PATTERN = /^([a-zA-Z_:][a-zA-Z0-9_:]*)?$/;

/**
 * Prometheus metrics of mqkit consumers and producers, on prom-client. Registers its metrics on the registry at
 * once (a clash is a ConfigurationError here, not at start). One value may be given to several clients, e.g. a
 * consumer app and a producer: they share its metrics, each labelled with its own groups. The plugin listens to
 * events and adds a send hook; gauges (cache, in-flight calls, lag) read the clients' status at scrape time.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * const registry = new Registry();
 * const metrics = prometheusMetrics({ registry });
 * const app = createConsumerApp({ transport, consumers: [OrderConsumer], plugins: [metrics] });
 * const producer = await createProducer({ transport, group: 'orders-producer', plugins: [metrics] });
 * http.createServer(async (_req, res) => res.end(await registry.metrics())).listen(9464);
 * ```
 */
export function prometheusMetrics(options: PrometheusMetricsOptions = {}): MqkitPlugin {
  const registry = options.registry ?? defaultRegistry;
  const prefix = options.prefix ?? '';
  checkOptions(registry, prefix);
  const metrics = new MqkitMetrics(registry, prefix);
  return {
    name: 'metrics-prometheus',
    register(container, context) {
      container.register(Tokens.SendHook, { useValue: sendMetricsHook(metrics) });
      const offsets = container.isRegistered(Tokens.BrokerOffsets, true)
        ? container.resolve(Tokens.BrokerOffsets)
        : undefined;
      const detach = metrics.attach({
        namespace: context.namespace,
        consumers: () => context.consumers(),
        maxOffset: offsets ? (mq) => offsets.maxOffset(mq) : undefined,
      });
      const unlisten = listenToConsumers(context.events, context.namespace, metrics);
      // Counters stay (they count what happened); the client's gauges leave the scrape with it.
      context.addTeardown(() => {
        unlisten();
        detach();
      });
    },
  };
}

function checkOptions(registry: MetricsRegistry, prefix: unknown): asserts prefix is string {
  if (
    typeof registry !== 'object' ||
    registry === null ||
    typeof registry.registerMetric !== 'function' ||
    typeof registry.getSingleMetric !== 'function'
  ) {
    throw new ConfigurationError({
      source: SOURCE,
      option: 'registry',
      value: registry,
      allowed: 'a prom-client Registry (new Registry() or its global register)',
    });
  }
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new ConfigurationError({
      source: SOURCE,
      option: 'prefix',
      value: prefix,
      allowed: 'letters, digits, _ and :, not starting with a digit',
    });
  }
  const taken = Object.values(METRIC_NAMES)
    .map((name) => prefix + name)
    .filter((name) => registry.getSingleMetric(name) !== undefined);
  if (taken.length > 0) {
    throw new ConfigurationError({
      source: SOURCE,
      option: 'registry',
      value: taken.join(', '),
      allowed:
        'a registry that holds none of these names yet: give one prometheusMetrics() value to every client, or another prefix',
    });
  }
}
