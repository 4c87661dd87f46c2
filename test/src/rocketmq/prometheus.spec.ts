import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MetricsRig, type MetricsBackend } from '../metrics/metrics-rig';
import { gaugesOfABlockedHandler, lagOfPausedConsumer, twoRoundsUnderLoad } from '../metrics/metrics-scenarios';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let harness: RocketMqHarness;
let rig: MetricsRig | undefined;
beforeAll(async () => {
  harness = new RocketMqHarness(await testCluster());
});
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});
afterAll(async () => harness?.close());

/** A rig on the run's real cluster: topics on every broker, so lag series name each of them. */
function clusterRig(): MetricsRig {
  const backend: MetricsBackend = {
    transport: () => harness.transport(),
    createTopic: (topic, queues) => harness.createTopic(topic, queues),
    timeoutMs: 90_000,
  };
  rig = new MetricsRig(backend);
  return rig;
}

// The scenarios of test/src/metrics/prometheus.spec.ts, on real brokers (their delay levels are all 1 s, so the
// retry and the dead letter of each failure take about a second).
describe('Prometheus metrics on a real cluster, scraped over HTTP', () => {
  it('counts 2 x 500 messages exactly (successes, failures, retries, DLQ, sends) and adds no series in the second round', async () => {
    const scrape = await twoRoundsUnderLoad(clusterRig(), { queues: 2, perRound: 500 });
    expect(
      scrape
        .samples('rocketmq_consumer_queue_lag_messages')
        .map((s) => s.labels.broker_name)
        .filter((b, i, all) => all.indexOf(b) === i).length,
    ).toBe(harness.cluster.brokers.length);
  }, 240_000);

  it("a paused consumer's lag gauges say how many messages were sent to each queue meanwhile (GET_MAX_OFFSET at scrape time)", async () => {
    await lagOfPausedConsumer(clusterRig(), { queues: 2 });
  }, 180_000);

  it('a blocked handler shows as 1 cached message, 1 call in flight and the lag of its queue', async () => {
    await gaugesOfABlockedHandler(clusterRig(), { queues: 1 });
  }, 180_000);
});
