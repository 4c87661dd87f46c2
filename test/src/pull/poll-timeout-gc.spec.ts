import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createPullConsumer, type PullConsumer } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness } from '../support/fixtures';

// A garbage collection while poll() waits is what a busy app does; the test forces one so that it happens every time.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

let harness: Harness | undefined;
let consumer: PullConsumer | undefined;
afterEach(async () => {
  await consumer?.close();
  await harness?.close();
});

describe('poll() on a queue with nothing to read', () => {
  it('returns [] at its timeout although the heap was collected while it waited', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    consumer = await createPullConsumer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('g'),
      profile: 'fast',
    });
    await consumer.assign(await consumer.queuesOf(topic));
    let answer: unknown;
    void consumer.poll({ timeoutMs: 50 }).then((messages) => {
      answer = messages;
    });
    // Collected once poll() is waiting (a macrotask later), as a busy app's heap would be.
    await new Promise<void>((resolve) => setImmediate(resolve));
    collectGarbage();
    // Generous: the timeout is 50 ms, and a poll whose timer was collected never returns.
    await waitFor(() => answer !== undefined, { timeoutMs: 10_000, message: () => 'poll() never returned' });
    expect(answer).toEqual([]);
  });
});
