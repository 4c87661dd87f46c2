import {
  BrokerError,
  DEFAULT_DELAY_LEVELS_MS,
  PullStatus,
  parseSubscription,
  type MessageQueue,
  type OutgoingRecord,
  type PullRequest,
} from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedBroker } from './embedded-broker';

const brokers: EmbeddedBroker[] = [];
function broker(options = {}): EmbeddedBroker {
  const b = new EmbeddedBroker(options);
  brokers.push(b);
  return b;
}
afterEach(() => {
  for (const b of brokers.splice(0)) b.close();
});

const mq = (queueId = 0, topic = 'T', brokerName = 'broker-a'): MessageQueue => ({ topic, brokerName, queueId });
const record = (body: string, properties: Record<string, string> = {}, topic = 'T'): OutgoingRecord => ({
  topic,
  body: Buffer.from(body),
  flag: 0,
  properties: { UNIQ_KEY: `U-${body}`, ...properties },
  sysFlag: 0,
  bornTimestamp: Date.now(),
});
const pull = (over: Partial<PullRequest> = {}): PullRequest => ({
  group: 'g',
  mq: mq(),
  offset: 0,
  maxMsgs: 32,
  maxBytes: 1 << 20,
  subscription: parseSubscription('T', '*'),
  suspendMs: 50,
  timeoutMs: 1000,
  ...over,
});

describe('EmbeddedBroker store and pull', () => {
  it('appends with queue offsets and answers FOUND with nextBeginOffset', async () => {
    const b = broker();
    b.createTopic({ topic: 'T', queues: 2 });
    for (const x of ['a', 'b', 'c']) b.send(mq(1), record(x));
    const r = await b.pull(pull({ mq: mq(1), offset: 1 }));
    expect(r.status).toBe(PullStatus.FOUND);
    expect(r.messages.map((m) => [m.queueOffset, m.body.toString()])).toEqual([
      [1, 'b'],
      [2, 'c'],
    ]);
    expect(r).toMatchObject({ nextBeginOffset: 3, minOffset: 0, maxOffset: 3 });
    expect(r.messages[0]!.offsetMsgId).toMatch(/^[0-9A-F]{32}$/);
  });

  it('respects maxMsgs and maxBytes but always returns at least one message', async () => {
    const b = broker();
    b.createTopic({ topic: 'T', queues: 1 });
    for (let i = 0; i < 10; i++) b.send(mq(), record('x'.repeat(100) + i));
    expect((await b.pull(pull({ maxMsgs: 3 }))).messages).toHaveLength(3);
    expect((await b.pull(pull({ maxBytes: 250 }))).messages).toHaveLength(2);
    expect((await b.pull(pull({ maxBytes: 1 }))).messages).toHaveLength(1);
  });

  it('holds a pull at the end of the queue until a message arrives (long polling)', async () => {
    const b = broker();
    b.createTopic({ topic: 'T', queues: 1 });
    const pending = b.pull(pull({ suspendMs: 5000 }));
    await new Promise((r) => setTimeout(r, 20));
    b.send(mq(), record('late'));
    const r = await pending;
    expect(r.status).toBe(PullStatus.FOUND);
    expect(r.messages[0]!.body.toString()).toBe('late');
  });

  it('answers NO_NEW_MSG when the hold expires, and aborts a held pull on signal', async () => {
    const b = broker();
    b.createTopic({ topic: 'T', queues: 1 });
    b.send(mq(), record('a'));
    expect(await b.pull(pull({ offset: 1, suspendMs: 10 }))).toMatchObject({
      status: PullStatus.NO_NEW_MSG,
      nextBeginOffset: 1,
    });
    const controller = new AbortController();
    const held = b.pull(pull({ offset: 1, suspendMs: 60_000 }), controller.signal);
    controller.abort();
    await expect(held).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('holds many pulls on one broker without a MaxListenersExceededWarning (each listens for a crash)', async () => {
    const b = broker();
    b.createTopic({ topic: 'T', queues: 32 });
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      const controllers = Array.from({ length: 32 }, () => new AbortController());
      const held = controllers.map((c, q) =>
        b.pull(pull({ mq: mq(q), suspendMs: 60_000 }), c.signal).catch((e: unknown) => e),
      );
      // A warning is emitted on a later tick: let one pass with every pull held.
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (const c of controllers) c.abort();
      await Promise.all(held);
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('OFFSET_ILLEGAL below min, above max, and at a non-zero offset of an empty queue', async () => {
    const b = broker();
    b.createTopic({ topic: 'T', queues: 1 });
    expect(await b.pull(pull({ offset: 5 }))).toMatchObject({ status: PullStatus.OFFSET_ILLEGAL, nextBeginOffset: 0 });
    b.send(mq(), record('a'));
    expect(await b.pull(pull({ offset: 9 }))).toMatchObject({ status: PullStatus.OFFSET_ILLEGAL, nextBeginOffset: 1 });
    expect(await b.pull(pull({ offset: -1 }))).toMatchObject({ status: PullStatus.OFFSET_ILLEGAL, nextBeginOffset: 0 });
  });

  it('filters by tag hash: NO_MATCHED_MSG past a range of other tags, FOUND for the wanted ones', async () => {
    const b = broker();
    b.createTopic({ topic: 'T', queues: 1 });
    b.send(mq(), record('1', { TAGS: 'other' }));
    b.send(mq(), record('2'));
    b.send(mq(), record('3', { TAGS: 'wanted' }));
    const sub = parseSubscription('T', 'wanted');
    const first = await b.pull(pull({ subscription: sub, maxMsgs: 1 }));
    expect(first.status).toBe(PullStatus.FOUND);
    expect(first.messages.map((m) => m.body.toString())).toEqual(['3']);
    expect(first.nextBeginOffset).toBe(3);
    b.send(mq(), record('4', { TAGS: 'other' }));
    expect(await b.pull(pull({ subscription: sub, offset: 3 }))).toMatchObject({
      status: PullStatus.NO_MATCHED_MSG,
      nextBeginOffset: 4,
    });
  });

  it('commits the piggy-backed offset of a pull', async () => {
    const b = broker();
    b.createTopic({ topic: 'T', queues: 1 });
    b.send(mq(), record('a'));
    expect(b.queryConsumerOffset('g', mq())).toBe(-1);
    await b.pull(pull({ commitOffset: 1 }));
    expect(b.queryConsumerOffset('g', mq())).toBe(1);
  });

  it('min, max and search by store time', async () => {
    const b = broker();
    b.createTopic({ topic: 'T', queues: 1 });
    b.send(mq(), record('a'));
    // The clock must move past a's store time (a timer can fire early against Date.now(), so wait for the clock).
    const storedBy = Date.now();
    await waitFor(() => Date.now() > storedBy);
    const t = Date.now();
    b.send(mq(), record('b'));
    expect([
      b.minOffset(mq()),
      b.maxOffset(mq()),
      b.searchOffset(mq(), t),
      b.searchOffset(mq(), 0),
      b.searchOffset(mq(), t + 60_000),
    ]).toEqual([0, 2, 1, 0, 2]);
  });

  it('validates sends like RocketMQ brokers, and auto-creates topics only when allowed', () => {
    const b = broker({ autoCreateTopic: false });
    expect(() => b.send(mq(), record('a'))).toThrow(expect.objectContaining({ responseCode: 17 }));
    b.createTopic({ topic: 'T', queues: 1 });
    expect(() => b.send(mq(3), record('a'))).toThrow(expect.objectContaining({ responseCode: 29 }));
    expect(() => b.send(mq(0, 'SCHEDULE_TOPIC_XXXX'), record('a', {}, 'SCHEDULE_TOPIC_XXXX'))).toThrow(BrokerError);
    const auto = broker({ defaultQueueNums: 4 });
    expect(auto.publishQueues('New')).toHaveLength(4);
  });
});

describe('EmbeddedBroker groups, retry, locks', () => {
  const handlers = (notices: string[]) => ({
    notifyConsumerIdsChanged: (g: string) => notices.push(g),
    resetOffsets: async () => undefined,
  });
  const registration = {
    group: 'g',
    messageModel: 'CLUSTERING' as const,
    consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' as const,
    subscriptions: [parseSubscription('T', '*')],
  };

  it('notifies members on join, leave and disconnect; creates the retry topic on heartbeat', async () => {
    const b = broker();
    const n1: string[] = [];
    const n2: string[] = [];
    b.connect('c1', handlers(n1));
    b.connect('c2', handlers(n2));
    b.heartbeat('c1', [registration]);
    expect(b.subscribeQueues('%RETRY%g')).toHaveLength(1);
    b.heartbeat('c2', [registration]);
    await waitFor(() => n1.length >= 2 && n2.length >= 1);
    expect(b.consumerIds('g').sort()).toEqual(['c1', 'c2']);
    b.heartbeat('c2', [registration]); // no change, no notice
    b.disconnect('c2');
    await waitFor(() => n1.length >= 3);
    expect(b.consumerIds('g')).toEqual(['c1']);
    expect(() => b.connect('c1', handlers([]))).toThrow(/already connected/);
  });

  it('drops members that stop heartbeating', async () => {
    const b = broker({ channelExpiryMs: 50 });
    b.connect('c1', handlers([]));
    b.heartbeat('c1', [registration]);
    expect(b.consumerIds('g')).toEqual(['c1']);
    await waitFor(() => b.consumerIds('g').length === 0, { timeoutMs: 2000 });
  });

  it('send-back re-delivers on %RETRY% after the delay level with reconsumeTimes + 1, then dead-letters', async () => {
    const b = broker({ delayLevelsMs: DEFAULT_DELAY_LEVELS_MS, delayTimeScale: 0.001 });
    b.createTopic({ topic: 'T', queues: 1 });
    b.send(mq(), record('poison', { TAGS: 't' }));
    const original = b.messages('T')[0]!;
    let message = original;
    for (let attempt = 1; attempt <= 2; attempt++) {
      b.sendBack({ group: 'g', message, delayLevel: 0, maxReconsumeTimes: 2 });
      await waitFor(() => b.messages('%RETRY%g').length === attempt);
      message = b.messages('%RETRY%g')[attempt - 1]!;
      expect(message.reconsumeTimes).toBe(attempt);
      // As a real broker's: the hop through the schedule topic leaves REAL_TOPIC and REAL_QID, and drops DELAY.
      expect(message.properties).toMatchObject({
        RETRY_TOPIC: 'T',
        ORIGIN_MESSAGE_ID: original.offsetMsgId,
        UNIQ_KEY: 'U-poison',
        TAGS: 't',
        REAL_TOPIC: '%RETRY%g',
        REAL_QID: '0',
        WAIT: 'false',
      });
      expect(message.properties.DELAY).toBeUndefined();
    }
    // The DLQ copy counts the failed delivery too (reconsumeTimes 2 -> 3, as RocketMQ's broker stores it), keeps what
    // the retry copy carried, and has delay level 0.
    b.sendBack({ group: 'g', message, delayLevel: 0, maxReconsumeTimes: 2 });
    expect(b.messages('%DLQ%g').map((m) => [m.body.toString(), m.reconsumeTimes])).toEqual([['poison', 3]]);
    expect(b.messages('%DLQ%g')[0]!.properties).toMatchObject({
      RETRY_TOPIC: 'T',
      ORIGIN_MESSAGE_ID: original.offsetMsgId,
      REAL_TOPIC: '%RETRY%g',
      REAL_QID: '0',
      DELAY: '0',
      WAIT: 'false',
    });
  });

  it('delayLevel -1 goes straight to the DLQ; a producer DELAY is delivered later', async () => {
    const b = broker({ delayLevelsMs: DEFAULT_DELAY_LEVELS_MS, delayTimeScale: 0.001 });
    b.createTopic({ topic: 'T', queues: 1 });
    b.send(mq(), record('d', { DELAY: '2' }));
    expect(b.messages('T')).toHaveLength(0);
    await waitFor(() => b.messages('T').length === 1);
    expect(b.messages('T')[0]!.properties.DELAY).toBeUndefined();
    b.sendBack({ group: 'g', message: b.messages('T')[0]!, delayLevel: -1, maxReconsumeTimes: 16 });
    expect(b.messages('%DLQ%g')).toHaveLength(1);
    // Never retried: no REAL_TOPIC, and the first failed delivery counted.
    expect(b.messages('%DLQ%g')[0]!.reconsumeTimes).toBe(1);
    expect(b.messages('%DLQ%g')[0]!.properties.REAL_TOPIC).toBeUndefined();
  });

  it('queue locks: one owner, refreshed by the owner, taken over after expiry', async () => {
    const b = broker({ lockExpiryMs: 40 });
    expect(b.lock('g', 'c1', [mq(0), mq(1)])).toHaveLength(2);
    expect(b.lock('g', 'c2', [mq(0)])).toHaveLength(0);
    b.unlock('g', 'c1', [mq(1)]);
    expect(b.lock('g', 'c2', [mq(1)])).toHaveLength(1);
    await waitFor(() => b.lockHolder('g', mq(0)) === undefined, { timeoutMs: 1000 });
    expect(b.lock('g', 'c2', [mq(0)])).toHaveLength(1);
  });
});
