import {
  Consumer,
  createConsumerApp,
  createProducer,
  type ConsumerApp,
  type ConsumerOptions,
  type Message,
  type OffsetStoreProvider,
} from '@mqkit/core';
import { memoryTransport, type EmbeddedBroker } from '@mqkit/transport-memory';
import { offsetFieldOf } from '@mqkit/offset-store-redis';

/** Which payload ids a group consumed, and how often. */
export class Seen {
  readonly counts = new Map<number, number>();
  /** Deliveries of an id that had been consumed already. */
  duplicates = 0;

  see(id: number): void {
    const n = this.counts.get(id) ?? 0;
    if (n > 0) this.duplicates++;
    this.counts.set(id, n + 1);
  }

  get size(): number {
    return this.counts.size;
  }

  /** Ids in [from, to) never consumed. */
  missing(from: number, to: number): number[] {
    const out: number[] = [];
    for (let i = from; i < to; i++) if (!this.counts.has(i)) out.push(i);
    return out;
  }
}

/** A `@Consumer` class for one group and topic, recording payload ids in `seen`; `options` adds consumer options. */
export function recordingConsumer(
  group: string,
  topic: string,
  seen: Seen,
  options: Partial<ConsumerOptions> = {},
): new () => object {
  class RecordingConsumer {
    async handle(message: Message<{ i: number }>): Promise<void> {
      seen.see(message.payload.i);
    }
  }
  Consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', ...options, group, topic })(RecordingConsumer);
  return RecordingConsumer;
}

/** Starts `members` apps of one group on the embedded broker, each with its own offset store provider. */
export async function startGroup(options: {
  broker: EmbeddedBroker;
  consumer: new () => object;
  offsetStore: () => OffsetStoreProvider;
  members?: number;
  /** Called with each app before it starts (listeners that must see every event). */
  beforeStart?: (app: ConsumerApp) => void;
}): Promise<ConsumerApp[]> {
  const apps: ConsumerApp[] = [];
  for (let k = 0; k < (options.members ?? 3); k++) {
    const app = await createConsumerApp({
      transport: memoryTransport({ broker: options.broker }),
      consumers: [options.consumer],
      offsetStore: options.offsetStore(),
      profile: 'fast',
    });
    options.beforeStart?.(app);
    apps.push(app);
  }
  await Promise.all(apps.map((app) => app.start()));
  return apps;
}

/** A producer that sends payloads {i} for i in [from, to), `parallel` sends at a time. */
export async function openProducer(broker: EmbeddedBroker, topic: string, parallel = 256) {
  const producer = await createProducer({ transport: memoryTransport({ broker }), group: `producer-${topic}` });
  return {
    async send(from: number, to: number): Promise<void> {
      for (let start = from; start < to; start += parallel) {
        const end = Math.min(to, start + parallel);
        const sends: Promise<unknown>[] = [];
        for (let i = start; i < end; i++) sends.push(producer.send({ topic, payload: { i } }));
        await Promise.all(sends);
      }
    },
    stop: () => producer.stop(),
  };
}

/** Sends payloads {i} for i in [from, to). */
export async function produce(broker: EmbeddedBroker, topic: string, from: number, to: number): Promise<void> {
  const producer = await openProducer(broker, topic);
  try {
    await producer.send(from, to);
  } finally {
    await producer.stop();
  }
}

/** The broker's max offset of every queue of the topic, by Redis field (`<brokerName>:<queueId>`). */
export function maxOffsets(broker: EmbeddedBroker, topic: string): Record<string, string> {
  return Object.fromEntries(
    broker.subscribeQueues(topic).map((mq) => [offsetFieldOf(mq), String(broker.maxOffset(mq))]),
  );
}

/** HGETALL's flat [field, value, ...] reply as a record. */
export function hashOf(reply: unknown): Record<string, string> {
  const flat = reply as string[];
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

/**
 * Samples a Redis hash every `intervalMs` (skipping samples while Redis is down) and counts fields whose value
 * went down between two samples.
 */
export function watchForRegressions(read: () => Promise<Record<string, string>>, intervalMs = 100) {
  const last = new Map<string, number>();
  const regressions: string[] = [];
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const now = await read();
        samples++;
        for (const [field, value] of Object.entries(now)) {
          const before = last.get(field);
          if (before !== undefined && Number(value) < before) regressions.push(`${field}: ${before} -> ${value}`);
          last.set(field, Number(value));
        }
      } catch {
        // Redis is down: nothing to sample.
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    regressions,
    get samples() {
      return samples;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
