import type { SendHook, SendInvocation } from '@mqkit/core';
import type { MqkitMetrics } from './mqkit-metrics';

/**
 * Producer metrics as a send hook rather than from producer.send / producer.error events: an event comes per
 * broker attempt and a failed one may still be retried, while a hook sees each call's final outcome, its message
 * count (a batch) and the group and topic as the application names them.
 */
export function sendMetricsHook(metrics: MqkitMetrics): SendHook {
  return {
    name: 'metrics-prometheus',
    async around(call: SendInvocation, proceed) {
      const started = performance.now();
      let ok = false;
      try {
        const results = await proceed();
        ok = true;
        return results;
      } finally {
        const labels = { producer_group: call.group, topic: call.topic, kind: call.kind };
        metrics.sentMessages.inc({ ...labels, result: ok ? 'success' : 'failure' }, call.messages.length);
        metrics.sendCostTime.observe(
          { ...labels, invocation_status: ok ? 'success' : 'failure' },
          (performance.now() - started) / 1000,
        );
      }
    },
  };
}
