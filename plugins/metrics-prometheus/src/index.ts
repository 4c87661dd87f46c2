export { prometheusMetrics, type PrometheusMetricsOptions } from './prometheus-metrics.plugin';
export type { MetricsRegistry } from './mqkit-metrics';
export { BUCKETS, LABELS, METRIC_NAMES, type MetricKey } from './metric-names';
