import { afterAll, beforeAll, describe, it } from 'vitest';
import { pauseHoldsHandlerCalls, retryWaitsWhilePaused, type PauseBackend } from '../delivery/pause-scenarios';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let harness: RocketMqHarness;
beforeAll(async () => {
  harness = new RocketMqHarness(await testCluster());
});
afterAll(async () => harness?.close());

/** The scenarios of test/src/delivery/controls.spec.ts on the run's real cluster (topics on every broker). */
function cluster(): PauseBackend {
  return {
    transport: () => harness.transport(),
    createTopic: (topic, queues) => harness.createTopic(topic, queues),
    app: (consumers, options) => harness.app(consumers, options),
    timeoutMs: 90_000,
  };
}

// Before pause() held dispatch, 8 of 8 messages sent after the pause were handled here: the broker answers a held
// long poll as soon as a message arrives.
describe('pause on a real cluster', () => {
  it.each(['CONCURRENTLY', 'ORDERLY'] as const)(
    '%s: await pause() stops handler calls; what the held long polls bring is cached and uncommitted, and handled once after resume()',
    async (mode) => {
      await pauseHoldsHandlerCalls(cluster(), mode);
    },
    240_000,
  );

  it('a retry due while paused (sent back to the broker, pulled from the retry queue) is not handled until resume()', async () => {
    await retryWaitsWhilePaused(cluster());
  }, 240_000);
});
