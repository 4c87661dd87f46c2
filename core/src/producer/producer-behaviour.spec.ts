import { describe, expect, it } from 'vitest';
import { inflateSync } from 'node:zlib';
import { BatchSendError } from '../errors/batch-send.error';
import { BrokerError } from '../errors/broker.error';
import { MessageValidationError } from '../errors/validation.error';
import { EventBus } from '../events/event-bus';
import type { MessageQueue } from '../model/message-queue';
import type { OutgoingRecord, SendResult, SendStatus } from '../spi/transport.roles';
import { javaStringHashCode } from '../util/java-hash';
import { LatencyFaultTolerance } from './latency-fault-tolerance';
import { Producer } from './producer';
import { resolveProducerOptions, type ProducerOptions } from './producer-options';
import { selectByHash } from './queue-selector';

const queues = ['broker-a', 'broker-b'].flatMap((brokerName) =>
  [0, 1, 2, 3].map((queueId) => ({ topic: 'T', brokerName, queueId })),
);

/** A sender whose answer per attempt is scripted: a status, or an error to throw. */
function scripted(
  plan: (mq: MessageQueue, attempt: number) => SendStatus | Error,
  options: Partial<ProducerOptions> = {},
  batchPlan: (batch: number) => Error | undefined = () => undefined,
) {
  const attempts: { mq: MessageQueue; record: OutgoingRecord }[] = [];
  const batches: OutgoingRecord[][] = [];
  const producer = new Producer({
    options: resolveProducerOptions({ group: 'p', ...options }),
    routes: { subscribeQueues: async () => queues, publishQueues: async () => queues },
    sender: {
      send: async (mq, record): Promise<SendResult> => {
        attempts.push({ mq, record });
        const outcome = plan(mq, attempts.length);
        if (outcome instanceof Error) throw outcome;
        return {
          status: outcome,
          msgId: record.properties.UNIQ_KEY!,
          offsetMsgId: 'O',
          messageQueue: mq,
          queueOffset: 0,
        };
      },
      sendBatch: async (mq, records) => {
        batches.push([...records]);
        const failure = batchPlan(batches.length);
        if (failure) throw failure;
        for (const record of records) attempts.push({ mq, record });
        return {
          status: 'SEND_OK',
          msgId: records.map((r) => r.properties.UNIQ_KEY).join(','),
          offsetMsgId: 'O',
          messageQueue: mq,
          queueOffset: 0,
        };
      },
    },
    events: new EventBus(),
  });
  return { producer, attempts, batches };
}

describe('send retries (sendDefaultImpl)', () => {
  it('retries a transport failure on another broker, keeping the UNIQ_KEY', async () => {
    const { producer, attempts } = scripted((mq) =>
      mq.brokerName === 'broker-a' ? new Error('ECONNREFUSED') : 'SEND_OK',
    );
    for (let i = 0; i < 16; i++) await producer.send({ topic: 'T', body: 'x' });
    const failed = attempts.filter((a) => a.mq.brokerName === 'broker-a');
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed) {
      const next = attempts[attempts.indexOf(f) + 1]!;
      expect(next.mq.brokerName).toBe('broker-b');
      expect(next.record.properties.UNIQ_KEY).toBe(f.record.properties.UNIQ_KEY);
    }
  });

  it('retries retryable broker codes, not others; gives up after 1 + retryTimesWhenSendFailed', async () => {
    const busy = scripted(() => new BrokerError('busy', { responseCode: 2 }), { retryTimesWhenSendFailed: 2 });
    await expect(busy.producer.send({ topic: 'T', body: 'x' })).rejects.toMatchObject({ responseCode: 2 });
    expect(busy.attempts).toHaveLength(3);
    const illegal = scripted(() => new BrokerError('bad', { responseCode: 13 }));
    await expect(illegal.producer.send({ topic: 'T', body: 'x' })).rejects.toMatchObject({ responseCode: 13 });
    expect(illegal.attempts).toHaveLength(1);
  });

  it('a stored-but-unconfirmed status is a result, retried only with retryAnotherBrokerWhenNotStoreOK', async () => {
    const plain = scripted(() => 'FLUSH_DISK_TIMEOUT');
    await expect(plain.producer.send({ topic: 'T', body: 'x' })).resolves.toMatchObject({
      status: 'FLUSH_DISK_TIMEOUT',
    });
    expect(plain.attempts).toHaveLength(1);
    const retrying = scripted((_mq, n) => (n === 1 ? 'FLUSH_SLAVE_TIMEOUT' : 'SEND_OK'), {
      retryAnotherBrokerWhenNotStoreOK: true,
    });
    await expect(retrying.producer.send({ topic: 'T', body: 'x' })).resolves.toMatchObject({ status: 'SEND_OK' });
    expect(retrying.attempts.map((a) => a.mq.brokerName)[0]).not.toBe(retrying.attempts[1]!.mq.brokerName);
  });

  it('with latency fault tolerance, a failed broker is avoided by later sends for the isolation period', async () => {
    const { producer, attempts } = scripted((mq) => (mq.brokerName === 'broker-a' ? new Error('timeout') : 'SEND_OK'), {
      sendLatencyFaultEnable: true,
    });
    for (let i = 0; i < 40; i++) await producer.send({ topic: 'T', body: 'x' });
    expect(attempts.filter((a) => a.mq.brokerName === 'broker-a')).toHaveLength(1);
  });

  it('RocketMQ latency table: 0 below 550 ms, 2 s, 5 s, 6 s, 10 s, 30 s above', () => {
    expect([49, 100, 549, 550, 1800, 3000, 5000, 15000].map(LatencyFaultTolerance.durationFor)).toEqual([
      0, 0, 0, 2000, 5000, 6000, 10000, 30000,
    ]);
  });
});

describe('ordered sends (selectors)', () => {
  it('a sharding key always picks |hashCode(key)| mod n, with one attempt and no retry', async () => {
    const { producer, attempts } = scripted(() => 'SEND_OK');
    for (const key of ['order-1', 'order-2', 'order-1', '中文', 'polygenelubricants'])
      await producer.send({ topic: 'T', body: 'x' }, { shardingKey: key });
    const expected = ['order-1', 'order-2', 'order-1', '中文', 'polygenelubricants'].map(
      (k) => queues[Math.abs(javaStringHashCode(k) % 8)]!,
    );
    expect(attempts.map((a) => a.mq)).toEqual(expected);
    const failing = scripted(() => new Error('down'));
    await expect(failing.producer.send({ topic: 'T', body: 'x' }, { shardingKey: 'k' })).rejects.toThrow('down');
    expect(failing.attempts).toHaveLength(1);
  });

  it('selectByHash matches Java for negative hash codes', () => {
    expect(selectByHash('polygenelubricants')(queues, { topic: 'T' })).toBe(queues[0]);
  });
});

describe('compression, oneway and batches', () => {
  it('compresses bodies of at least compressMsgBodyOverHowmuch with zlib and sets sysFlag 0x301', async () => {
    const { producer, attempts } = scripted(() => 'SEND_OK', { compressMsgBodyOverHowmuch: 100 });
    await producer.send({ topic: 'T', body: 'a'.repeat(99) });
    await producer.send({ topic: 'T', body: 'a'.repeat(100) });
    expect(attempts[0]!.record.sysFlag).toBe(0);
    expect(attempts[1]!.record.sysFlag).toBe(0x301);
    expect(inflateSync(attempts[1]!.record.body).toString()).toBe('a'.repeat(100));
  });

  it('batches: one topic, no delay, each message its own UNIQ_KEY, never compressed; size checked encoded', async () => {
    const { producer, attempts } = scripted(() => 'SEND_OK', { compressMsgBodyOverHowmuch: 10, maxMessageSize: 200 });
    const result = await producer.sendBatch([
      { topic: 'T', body: 'x'.repeat(20) },
      { topic: 'T', body: 'y' },
    ]);
    expect(attempts.map((a) => a.record.sysFlag)).toEqual([0, 0]);
    expect(result.map((r) => r.msgId)).toEqual(attempts.map((a) => a.record.properties.UNIQ_KEY));
    const rules = async (messages: object[]) =>
      (await producer.sendBatch(messages as never).catch((e: MessageValidationError) => e)) as MessageValidationError;
    expect((await rules([])).rule).toBe('batch.empty');
    expect(
      (
        await rules([
          { topic: 'T', body: 'a' },
          { topic: 'U', body: 'b' },
        ])
      ).rule,
    ).toBe('batch.topic');
    expect((await rules([{ topic: 'T', body: 'a', delayTimeLevel: 2 }])).rule).toBe('batch.delay');
    expect((await rules([{ topic: '%RETRY%g', body: 'a' }])).rule).toBe('batch.retry-topic');
    // One message that cannot fit a batch on its own (body within the limit, encoded over it).
    expect(
      (
        await rules([
          { topic: 'T', body: 'y' },
          { topic: 'T', body: 'x'.repeat(195) },
        ])
      ).rule,
    ).toBe('batch.size');
  });

  it("a list over maxMessageSize is split, in order, by RocketMQ's ListSplitter rule; one result per message", async () => {
    const { producer, batches } = scripted(() => 'SEND_OK', { maxMessageSize: 300 });
    // Each record encodes to 22 + 60 (body) + 52 (WAIT and UNIQ_KEY properties) = 134 bytes: two fit in 300.
    const bodies = ['a', 'b', 'c', 'd', 'e'].map((c) => c.repeat(60));
    const results = await producer.sendBatch(bodies.map((body) => ({ topic: 'T', body })));
    expect(batches.map((b) => b.map((r) => r.body.toString()))).toEqual([
      bodies.slice(0, 2),
      bodies.slice(2, 4),
      bodies.slice(4),
    ]);
    expect(results.map((r) => r.msgId)).toEqual(batches.flat().map((r) => r.properties.UNIQ_KEY));
  });

  it('a split batch that fails after others were stored says which messages are stored', async () => {
    const refused = new BrokerError('refused', { responseCode: 16, retriable: false });
    const { producer } = scripted(
      () => 'SEND_OK',
      { maxMessageSize: 300, retryTimesWhenSendFailed: 0 },
      (n) => (n === 2 ? refused : undefined),
    );
    const error = await producer
      .sendBatch(['a', 'b', 'c'].map((c) => ({ topic: 'T', body: c.repeat(60) })))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchSendError);
    expect((error as BatchSendError).results).toHaveLength(2);
    expect((error as BatchSendError).cause).toBe(refused);
  });

  it('timer messages: one of deliverTimeMs, delayTimeMs, delayTimeSec as its TIMER_* property; never with a delay level or in a batch', async () => {
    const { producer, attempts } = scripted(() => 'SEND_OK');
    await producer.send({ topic: 'T', body: 'a', deliverTimeMs: 1_900_000_000_000 });
    await producer.send({ topic: 'T', body: 'b', delayTimeMs: 1_500 });
    await producer.send({ topic: 'T', body: 'c', delayTimeSec: 30 });
    expect(attempts.map((a) => Object.entries(a.record.properties).filter(([k]) => k.startsWith('TIMER_')))).toEqual([
      [['TIMER_DELIVER_MS', '1900000000000']],
      [['TIMER_DELAY_MS', '1500']],
      [['TIMER_DELAY_SEC', '30']],
    ]);
    const rule = async (m: object, batch = false) =>
      (
        (await (batch ? producer.sendBatch([m as never]) : producer.send(m as never)).catch(
          (e: MessageValidationError) => e,
        )) as MessageValidationError
      ).rule;
    expect(await rule({ topic: 'T', body: 'x', delayTimeMs: 10, delayTimeSec: 1 })).toBe('timer.several');
    expect(await rule({ topic: 'T', body: 'x', delayTimeMs: 0 })).toBe('timer.value');
    expect(await rule({ topic: 'T', body: 'x', delayTimeSec: 1.5 })).toBe('timer.value');
    expect(await rule({ topic: 'T', body: 'x', deliverTimeMs: Date.now() + 1_000, delayTimeLevel: 3 })).toBe(
      'timer.delay-level',
    );
    expect(await rule({ topic: 'T', body: 'x', delayTimeMs: 100 }, true)).toBe('batch.timer');
    expect(attempts).toHaveLength(3);
  });

  it('a transactional send runs the local transaction once and resolves even when its END_TRANSACTION cannot be sent (the check-back settles it)', async () => {
    const events = new EventBus();
    const errors: unknown[] = [];
    events.on('producer.error', (e) => void errors.push(e.error));
    const ends: string[] = [];
    const producer = new Producer({
      options: resolveProducerOptions({
        group: 'p',
        transactionListener: { checkLocalTransaction: () => 'COMMIT_MESSAGE' },
      }),
      routes: { subscribeQueues: async () => queues, publishQueues: async () => queues },
      sender: {
        send: async (mq, record) => ({
          status: 'SEND_OK',
          msgId: record.properties.UNIQ_KEY!,
          offsetMsgId: 'O',
          messageQueue: mq,
          queueOffset: 0,
        }),
        endTransaction: async (request) => {
          ends.push(request.state);
          throw new Error('no route to broker-a');
        },
      },
      events,
    });
    let runs = 0;
    const { state } = await producer.sendInTransaction({ topic: 'T', body: 'x' }, () => {
      runs++;
      return 'COMMIT_MESSAGE';
    });
    expect([state, runs, ends]).toEqual(['COMMIT_MESSAGE', 1, ['COMMIT_MESSAGE']]);
    expect((errors[0] as Error).message).toBe('no route to broker-a');
  });

  it('a topic without a route fails every kind of send with a TOPIC_NOT_EXIST that says how to create it', async () => {
    const producer = new Producer({
      options: resolveProducerOptions({ group: 'p' }),
      routes: { subscribeQueues: async () => [], publishQueues: async () => [] },
      sender: {
        send: async () => {
          throw new Error('not sent: there is no queue');
        },
      },
      events: new EventBus(),
    });
    const sends = [
      producer.send({ topic: 'orders', body: 'x' }),
      producer.send({ topic: 'orders', body: 'x' }, { shardingKey: 'k' }),
      producer.sendOneway({ topic: 'orders', body: 'x' }),
    ];
    for (const send of sends) {
      const error = await send.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(BrokerError);
      expect(error).toMatchObject({ responseCode: 17, kind: 'topic-not-found', retriable: true });
      expect((error as Error).message).toMatch(
        /^No route info of this topic: orders \(create it first: admin\.createTopic, .*autoCreateTopicEnable/,
      );
    }
  });

  it('oneway sends make one attempt and resolve', async () => {
    const { producer, attempts } = scripted(() => 'SEND_OK');
    await producer.sendOneway({ topic: 'T', body: 'x' });
    expect(attempts).toHaveLength(1);
  });
});
