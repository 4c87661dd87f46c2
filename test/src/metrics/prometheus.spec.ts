import { memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MetricsRig, type MetricsBackend } from './metrics-rig';
import { gaugesOfABlockedHandler, lagOfPausedConsumer, twoRoundsUnderLoad } from './metrics-scenarios';

let rig: MetricsRig | undefined;
let closeBroker: (() => void) | undefined;
afterEach(async () => {
  await rig?.close();
  closeBroker?.();
  rig = undefined;
});

/** A rig on a fresh embedded broker with two brokers, so lag series name both. */
function embeddedRig(): MetricsRig {
  const broker = fastBroker({ brokerNames: ['broker-a', 'broker-b'] });
  closeBroker = () => broker.close();
  const backend: MetricsBackend = {
    transport: () => memoryTransport({ broker }),
    createTopic: async (topic, queues) => void broker.createTopic({ topic, queues }),
    timeoutMs: 30_000,
  };
  rig = new MetricsRig(backend);
  return rig;
}

describe('Prometheus metrics on the embedded broker, scraped over HTTP', () => {
  it('counts 2 x 5,000 messages exactly (successes, failures, retries, DLQ, sends) and adds no series in the second round', async () => {
    const scrape = await twoRoundsUnderLoad(embeddedRig(), { queues: 4, perRound: 5_000 });
    // Bounded: the whole scrape is a few hundred lines for 10,000 messages.
    expect(scrape.seriesCount).toBeLessThan(400);
  }, 120_000);

  it("a paused consumer's lag gauges say how many messages were sent to each queue meanwhile", async () => {
    await lagOfPausedConsumer(embeddedRig(), { queues: 4 });
  }, 60_000);

  it('a blocked handler shows as 1 cached message, 1 call in flight and the lag of its queue', async () => {
    await gaugesOfABlockedHandler(embeddedRig(), { queues: 2 });
  }, 60_000);
});
