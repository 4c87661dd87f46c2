import type { ConsumerStatus, MessageQueue, QueueStatus } from '@mqkit/core';
import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { collectLag, sumQueues } from './consumer-gauges';
import type { ScrapedClient } from './scraped-client';
import { Scrape } from './scrape';

function queue(topic: string, queueId: number, figures: Partial<QueueStatus>): QueueStatus {
  const mq: MessageQueue = { topic, brokerName: 'broker-a', queueId };
  const base = {
    mq,
    state: 'active',
    cachedCount: 0,
    cachedBytes: 0,
    nextOffset: 0,
    committableOffset: 0,
    committedOffset: 0,
    persistedOffset: -1,
    maxOffset: -1,
    lag: 0,
    inflight: 0,
    lastPullTimestamp: 0,
    lastConsumeTimestamp: 0,
  } as const;
  return { ...base, ...figures };
}

/** A client of one group whose queues are read at every scrape. */
function client(group: string, queues: () => QueueStatus[], extra: Partial<ScrapedClient> = {}): ScrapedClient {
  return {
    namespace: 'ns',
    consumers: () => [{ group, queues: queues() } as Partial<ConsumerStatus> as ConsumerStatus],
    ...extra,
  };
}

/** A registry holding one gauge `g` filled by `collect`; each call of the result is one scrape. */
function scraper(collect: (gauge: Gauge<string>) => void | Promise<void>, labelNames: string[]): () => Promise<Scrape> {
  const registry = new Registry();
  new Gauge({
    name: 'g',
    help: 'g',
    labelNames,
    registers: [registry],
    collect() {
      return collect(this);
    },
  });
  return async () => new Scrape(await registry.metrics());
}

describe('sumQueues', () => {
  it('sums a figure per group and topic without the namespace, and forgets queues gone since the last scrape', async () => {
    let queues = [
      queue('ns%A', 0, { cachedCount: 2 }),
      queue('ns%A', 1, { cachedCount: 3 }),
      queue('%RETRY%ns%g', 0, { cachedCount: 1 }),
    ];
    const scrape = scraper(
      (gauge) => sumQueues(gauge, [client('ns%g', () => queues)], (q) => q.cachedCount),
      ['consumer_group', 'topic'],
    );
    const first = await scrape();
    expect(first.samples('g').map((s) => [s.labels.consumer_group, s.labels.topic, s.value])).toEqual([
      ['g', 'A', 5],
      ['g', '%RETRY%g', 1],
    ]);
    queues = [queue('ns%A', 1, { cachedCount: 4 })];
    expect((await scrape()).samples('g').map((x) => [x.labels.topic, x.value])).toEqual([['A', 4]]);
  });
});

describe('collectLag', () => {
  const labels = ['consumer_group', 'topic', 'broker_name', 'queue_id'];

  it("uses the broker's max offset now, not the one the last pull saw (a paused consumer pulls nothing)", async () => {
    const c = client('ns%g', () => [queue('ns%A', 0, { maxOffset: 10, committableOffset: 10 })], {
      maxOffset: async () => 25,
    });
    const s = await scraper((gauge) => collectLag(gauge, [c]), labels)();
    expect(s.samples('g')).toEqual([
      { name: 'g', labels: { consumer_group: 'g', topic: 'A', broker_name: 'broker-a', queue_id: '0' }, value: 15 },
    ]);
  });

  it("falls back to the last pull's max offset when the broker fails or is late, and skips queues being released", async () => {
    const queues = [
      queue('A', 0, { maxOffset: 12, committableOffset: 2 }),
      queue('A', 1, { maxOffset: 7, committableOffset: 7 }),
      queue('A', 2, { state: 'draining', maxOffset: 9 }),
    ];
    const late = client('g', () => queues, {
      maxOffset: (mq) => (mq.queueId === 0 ? Promise.reject(new Error('down')) : new Promise<number>(() => undefined)),
    });
    const s = await scraper((gauge) => collectLag(gauge, [late], 20), labels)();
    expect(s.samples('g').map((x) => [x.labels.queue_id, x.value])).toEqual([
      ['0', 10],
      ['1', 0],
    ]);
  });

  it('reports no lag below zero and none for a queue with no known committable offset', async () => {
    const c = client('g', () => [
      queue('A', 0, { maxOffset: 3, committableOffset: 5 }),
      queue('A', 1, { committableOffset: -1 }),
    ]);
    const s = await scraper((gauge) => collectLag(gauge, [c]), labels)();
    expect(s.samples('g').map((x) => [x.labels.queue_id, x.value])).toEqual([['0', 0]]);
  });
});
