import {
  createProducer,
  dlqTopicOf,
  retryTopicOf,
  type ConsumerApp,
  type ConsumerAppOptions,
  type Message,
  type TransportPlugin,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let real: RocketMqHarness;
let embedded: Harness;
beforeAll(async () => {
  real = new RocketMqHarness(await testCluster());
  embedded = new Harness();
});
afterAll(async () => {
  await real?.close();
  await embedded?.close();
});

/** One broker to run the scenario on: the real cluster or the embedded broker. */
interface Side {
  readonly transport: () => TransportPlugin;
  createTopic(topic: string): Promise<void>;
  app(consumers: ConsumerAppOptions['consumers']): Promise<ConsumerApp>;
}

const sides: Record<'rocketmq' | 'embedded', () => Side> = {
  rocketmq: () => ({
    transport: () => real.transport(),
    createTopic: (topic) => real.createTopic(topic, 1, ['broker-a']),
    app: (consumers) => real.app(consumers),
  }),
  embedded: () => ({
    transport: () => memoryTransport({ broker: embedded.broker }),
    createTopic: async (topic) => embedded.broker.createTopic({ topic, queues: 1 }),
    app: (consumers) => embedded.app(consumers),
  }),
};

interface DeadLetter {
  readonly topic: string;
  readonly group: string;
  readonly sent: { readonly msgId: string; readonly offsetMsgId: string };
  readonly dlq: Message;
}

/**
 * The scenario: a handler that always fails, maxReconsumeTimes 1 (one retry through %RETRY%<group>, whose delay
 * level the test brokers shorten to 1 s, and the embedded test broker to 10 ms), then the copy a reader of
 * %DLQ%<group> receives.
 */
async function deadLetter(side: Side): Promise<DeadLetter> {
  const topic = uniqueName('dlqCopy');
  const group = uniqueName('dlqCopyGroup');
  await side.createTopic(topic);
  await side.app([
    consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', maxReconsumeTimes: 1 }, () => {
      throw new Error('always fails');
    }),
  ]);
  // A generous send timeout, as the harness's: the test brokers share two cores with everything else on the box.
  const producer = await createProducer({
    transport: side.transport(),
    group: uniqueName('dlqCopyProducer'),
    sendMsgTimeout: 10_000,
  });
  let sent: DeadLetter['sent'];
  try {
    sent = await producer.send({
      topic,
      body: 'dead letter',
      tags: 'TagA',
      keys: ['order-1', 'order-2'],
      properties: { region: 'eu' },
    });
  } finally {
    await producer.stop();
  }
  let dlq: Message | undefined;
  await side.app([
    consumerClass(
      { group: uniqueName('dlqCopyReader'), topic: dlqTopicOf(group), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m) => {
        dlq = m;
      },
    ),
  ]);
  await waitFor(() => dlq, { timeoutMs: 60_000, message: `the DLQ copy in ${dlqTopicOf(group)}` });
  return { topic, group, sent, dlq: dlq! };
}

/** The copy's properties with this run's names and ids replaced by what they stand for, so two runs compare. */
function normalized(d: DeadLetter): Record<string, string> {
  const names: Record<string, string> = {
    [d.topic]: '<topic>',
    [retryTopicOf(d.group)]: '<retry topic>',
    [dlqTopicOf(d.group)]: '<dlq topic>',
    [d.sent.msgId]: '<msgId>',
    [d.sent.offsetMsgId]: '<offsetMsgId>',
  };
  return Object.fromEntries(Object.entries(d.dlq.properties).map(([k, v]) => [k, names[v] ?? v]));
}

/**
 * Properties that are not the DLQ copy's own: a real broker adds MSG_REGION and TRACE_ON to every message it stores
 * (the embedded broker adds neither, to any message), and the RocketMQ transport gives every pulled message
 * MIN_OFFSET and MAX_OFFSET (Java's processPullResult does; the embedded transport does not).
 */
const NOT_THE_COPYS = ['MSG_REGION', 'TRACE_ON', 'MIN_OFFSET', 'MAX_OFFSET'];
const copys = (p: Record<string, string>) =>
  Object.fromEntries(Object.entries(p).filter(([k]) => !NOT_THE_COPYS.includes(k)));

describe('the DLQ copy: the embedded broker against a real 5.3.3 broker', () => {
  it("carries the real broker copy's reconsumeTimes and properties: REAL_TOPIC, REAL_QID, RETRY_TOPIC, ORIGIN_MESSAGE_ID, WAIT, DELAY", async () => {
    const [rocketmq, memory] = await Promise.all([deadLetter(sides.rocketmq()), deadLetter(sides.embedded())]);
    const props = { rocketmq: normalized(rocketmq), embedded: normalized(memory) };

    // What the real broker does (SendMessageProcessor): reconsumeTimes is the retried message's + 1, the retry hop
    // through the schedule topic left REAL_TOPIC and REAL_QID, the first stored id is ORIGIN_MESSAGE_ID, the copy is
    // stored with WAIT false and delay level 0.
    expect(rocketmq.dlq.reconsumeTimes).toBe(2);
    expect(copys(props.rocketmq)).toEqual({
      REAL_TOPIC: '<retry topic>',
      REAL_QID: '0',
      RETRY_TOPIC: '<topic>',
      ORIGIN_MESSAGE_ID: '<offsetMsgId>',
      UNIQ_KEY: '<msgId>',
      TAGS: 'TagA',
      KEYS: 'order-1 order-2',
      WAIT: 'false',
      DELAY: '0',
      CLUSTER: 'DefaultCluster',
      region: 'eu',
    });

    // The embedded broker's copy: the same reconsumeTimes, the same properties, each standing for the same thing.
    expect(memory.dlq.reconsumeTimes).toBe(rocketmq.dlq.reconsumeTimes);
    expect(copys(props.embedded)).toEqual(copys(props.rocketmq));
    for (const [side, d] of [
      ['rocketmq', rocketmq],
      ['embedded', memory],
    ] as const) {
      expect({ side, topic: d.dlq.record.topic }).toEqual({ side, topic: dlqTopicOf(d.group) });
      expect({ side, body: d.dlq.body.toString(), tags: d.dlq.tags, keys: d.dlq.keys }).toEqual({
        side,
        body: 'dead letter',
        tags: 'TagA',
        keys: ['order-1', 'order-2'],
      });
      expect({ side, msgId: d.dlq.msgId }).toEqual({ side, msgId: d.sent.msgId });
    }
  }, 180_000);
});
