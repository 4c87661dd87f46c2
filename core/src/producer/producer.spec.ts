import { describe, expect, it } from 'vitest';
import { MessageValidationError } from '../errors/validation.error';
import { EventBus } from '../events/event-bus';
import type { MessageQueue } from '../model/message-queue';
import type { OutgoingRecord } from '../spi/transport.roles';
import { Producer } from './producer';
import { resolveProducerOptions } from './producer-options';
import { UniqKeyGenerator } from './uniq-key';

function producer(queues: MessageQueue[] = [{ topic: 'T', brokerName: 'a', queueId: 0 }]) {
  const sent: [MessageQueue, OutgoingRecord][] = [];
  const p = new Producer({
    options: resolveProducerOptions({ group: 'p', maxMessageSize: 1024 }),
    routes: { subscribeQueues: async () => queues, publishQueues: async () => queues },
    sender: {
      send: async (mq, record) => {
        sent.push([mq, record]);
        return {
          status: 'SEND_OK',
          msgId: record.properties.UNIQ_KEY!,
          offsetMsgId: 'X',
          messageQueue: mq,
          queueOffset: sent.length - 1,
        };
      },
    },
    events: new EventBus(),
  });
  return { p, sent };
}

describe('Producer validation (Validators.checkMessage)', () => {
  const rules: [string, object][] = [
    ['topic.blank', { topic: ' ', body: 'x' }],
    ['topic.length', { topic: 'x'.repeat(128), body: 'x' }],
    ['topic.chars', { topic: 'a.b', body: 'x' }],
    ['topic.reserved', { topic: 'SCHEDULE_TOPIC_XXXX', body: 'x' }],
    ['body.null', { topic: 'T' }],
    ['body.empty', { topic: 'T', body: '' }],
    ['body.size', { topic: 'T', body: 'x'.repeat(1025) }],
    ['property.reserved', { topic: 'T', body: 'x', properties: { UNIQ_KEY: 'mine' } }],
    ['property.blank', { topic: 'T', body: 'x', properties: { k: ' ' } }],
    ['delay.level', { topic: 'T', body: 'x', delayTimeLevel: -1 }],
  ];
  it.each(rules)('%s rejects and sends nothing', async (rule, message) => {
    const { p, sent } = producer();
    const error = await p.send(message as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MessageValidationError);
    expect((error as MessageValidationError).rule).toBe(rule);
    expect(sent).toHaveLength(0);
  });

  it('exactly maxMessageSize passes', async () => {
    const { p, sent } = producer();
    await p.send({ topic: 'T', body: 'x'.repeat(1024) });
    expect(sent).toHaveLength(1);
  });
});

describe('Producer sends', () => {
  it('sets TAGS, KEYS, WAIT, DELAY and a UNIQ_KEY; encodes payload as JSON', async () => {
    const { p, sent } = producer();
    const r = await p.send({
      topic: 'T',
      payload: { a: 1 },
      tags: 'created',
      keys: ['k1', 'k2'],
      delayTimeLevel: 3,
      properties: { traceId: 't' },
    });
    const [, record] = sent[0]!;
    expect(record.properties).toMatchObject({ TAGS: 'created', KEYS: 'k1 k2', WAIT: 'true', DELAY: '3', traceId: 't' });
    expect(record.properties.UNIQ_KEY).toMatch(/^[0-9A-F]{32}$/);
    expect(r.msgId).toBe(record.properties.UNIQ_KEY);
    expect(JSON.parse(record.body.toString())).toEqual({ a: 1 });
  });

  it('round robin visits every queue evenly', async () => {
    const queues = ['a', 'b'].flatMap((brokerName) =>
      [0, 1, 2, 3].map((queueId) => ({ topic: 'T', brokerName, queueId })),
    );
    const { p, sent } = producer(queues);
    for (let i = 0; i < 80; i++) await p.send({ topic: 'T', body: 'x' });
    const counts = new Map<string, number>();
    for (const [mq] of sent)
      counts.set(`${mq.brokerName}${mq.queueId}`, (counts.get(`${mq.brokerName}${mq.queueId}`) ?? 0) + 1);
    expect([...counts.values()]).toEqual(Array(8).fill(10));
  });

  it('stop() waits for sends in flight and refuses new ones', async () => {
    const { p } = producer();
    const pending = p.send({ topic: 'T', body: 'x' });
    await p.stop();
    await expect(pending).resolves.toMatchObject({ status: 'SEND_OK' });
    await expect(p.send({ topic: 'T', body: 'x' })).rejects.toThrow(/stopped/);
  });
});

describe('UNIQ_KEY', () => {
  it('is 32 uppercase hex chars, unique, with ip and pid first', () => {
    const gen = new UniqKeyGenerator('10.1.2.3');
    const keys = new Set(Array.from({ length: 1000 }, () => gen.next()));
    expect(keys.size).toBe(1000);
    const key = [...keys][0]!;
    expect(key).toMatch(/^[0-9A-F]{32}$/);
    expect(key.slice(0, 8)).toBe('0A010203');
    expect(key.slice(8, 12)).toBe((process.pid & 0xffff).toString(16).toUpperCase().padStart(4, '0'));
  });
});
