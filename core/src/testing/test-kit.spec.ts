import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../model/outgoing-message';
import { NAME_PATTERN } from '../options/option-checks';
import type { SendResult } from '../spi/transport.roles';
import { Deliveries } from './deliveries';
import { freePort } from './free-port';
import { sendSeqs } from './send-seqs';
import { uniqueName } from './unique-name';

/** A producer whose sends wait until the spec answers them, one by one. */
class HeldProducer {
  readonly sent: OutgoingMessage[] = [];
  readonly pending: { resolve(result: SendResult): void; reject(error: Error): void }[] = [];

  send(message: OutgoingMessage): Promise<SendResult> {
    this.sent.push(message);
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  }

  /** Answers the send of `index` as stored at that queue offset. */
  store(index: number): void {
    this.pending[index]!.resolve({
      status: 'SEND_OK',
      msgId: `M${index}`,
      offsetMsgId: `O${index}`,
      messageQueue: { topic: 'T', brokerName: 'broker-a', queueId: 0 },
      queueOffset: index,
    });
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('uniqueName', () => {
  it('keeps the prefix, is a valid RocketMQ topic and group name, and differs at every call', () => {
    const names = Array.from({ length: 1_000 }, () => uniqueName('orders-eu'));
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name.startsWith('orders-eu_')).toBe(true);
      expect(name).toMatch(NAME_PATTERN);
      expect(name.length).toBeLessThanOrEqual('orders-eu'.length + 18);
    }
  });
});

describe('Deliveries', () => {
  it('counts deliveries per sequence number, the ones missing below n and the duplicates', () => {
    const seen = new Deliveries();
    for (const seq of [0, 2, 2, 3, 5, 2]) seen.record(seq);
    expect(seen.total).toBe(6);
    expect(seen.unique).toBe(4);
    expect(seen.duplicates).toBe(2);
    expect(seen.counts.get(2)).toBe(3);
    expect(seen.missing(7)).toEqual([1, 4, 6]);
    expect(seen.missing(0)).toEqual([]);
  });
});

describe('sendSeqs', () => {
  it('sends { seq } with key k<seq> and the tag of each seq, from `from`, and resolves with the results in seq order', async () => {
    const producer = new HeldProducer();
    const done = sendSeqs(producer, 'T', 3, { from: 10, tags: (seq) => (seq % 2 ? 'odd' : 'even') });
    await flush();
    expect(producer.sent).toEqual([
      { topic: 'T', payload: { seq: 10 }, tags: 'even', keys: 'k10' },
      { topic: 'T', payload: { seq: 11 }, tags: 'odd', keys: 'k11' },
      { topic: 'T', payload: { seq: 12 }, tags: 'even', keys: 'k12' },
    ]);
    // Stored out of order: the results still come back in seq order.
    for (const index of [2, 0, 1]) producer.store(index);
    expect((await done).map((r) => r.queueOffset)).toEqual([0, 1, 2]);
  });

  it('keeps at most `window` sends in flight, and starts the next ones once the oldest is stored', async () => {
    const producer = new HeldProducer();
    let resolved = false;
    const done = sendSeqs(producer, 'T', 5, { window: 2 }).then((results) => {
      resolved = true;
      return results;
    });
    await flush();
    expect(producer.sent).toHaveLength(2);
    // The oldest is awaited first: a younger one stored does not open the window.
    producer.store(1);
    await flush();
    expect(producer.sent).toHaveLength(2);
    producer.store(0);
    await flush();
    expect(producer.sent).toHaveLength(4);
    producer.store(2);
    await flush();
    expect(producer.sent).toHaveLength(5);
    producer.store(4);
    await flush();
    expect(resolved).toBe(false);
    producer.store(3);
    expect((await done).map((r) => r.queueOffset)).toEqual([0, 1, 2, 3, 4]);
  });

  it('pads payloads to the given size', async () => {
    const producer = new HeldProducer();
    const done = sendSeqs(producer, 'T', 1, { padding: 5 });
    await flush();
    producer.store(0);
    await done;
    expect(producer.sent[0]!.payload).toEqual({ seq: 0, pad: 'xxxxx' });
  });

  it('rejects with a failed send, also one that fails while an older send is awaited', async () => {
    const producer = new HeldProducer();
    const done = sendSeqs(producer, 'T', 3, { window: 3 });
    await flush();
    producer.pending[2]!.reject(new Error('broker busy'));
    await flush();
    producer.store(0);
    producer.store(1);
    await expect(done).rejects.toThrow('broker busy');
  });
});

describe('freePort', () => {
  it('answers a port a server can then listen on', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
