import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

/** Holds the event loop, as a frozen process looks from inside once it runs again. */
function freeze(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: no timer, no I/O runs
  }
}

describe('a member that was frozen (its clock jumped past stallThresholdMs)', () => {
  it('drops what it cached, reads its offsets again, and goes on: nothing lost', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    const seen = new Deliveries();
    const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, async (m) => {
      await new Promise((r) => setImmediate(r));
      seen.record(m.payload.seq);
    });
    const app = await harness.app([Handler], { profile: { base: 'fast', stallThresholdMs: 1_500 } });
    const stalls: string[] = [];
    app.on('consumer.error', (e) => void (e.where === 'stall' && stalls.push(e.error.message)));
    const released: number[] = [];
    app.on(
      'consumer.rebalance',
      (e) => void (e.topic === topic && e.added.length > 0 && released.push(e.added.length)),
    );
    await harness.produce(topic, 500);
    await waitFor(() => seen.unique === 500);
    const addedBefore = released.length;
    freeze(2_500);
    await waitFor(() => stalls.length === 1, { message: 'a stall reported' });
    expect(stalls[0]).toMatch(/frozen for \d+ ms/);
    // The queues were dropped and taken again.
    await waitFor(
      () =>
        released.length > addedBefore &&
        app
          .consumer(group)
          .status()
          .queues.filter((q) => q.mq.topic === topic && q.state === 'active').length === 2,
    );
    await harness.produce(topic, 500, { from: 500 });
    await waitFor(() => seen.unique === 1_000);
    expect(seen.missing(1_000)).toEqual([]);
  }, 30_000);
});
