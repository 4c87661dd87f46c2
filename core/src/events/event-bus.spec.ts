import { EMPTY, config, map, type Observable } from 'rxjs';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { ConsumerApp } from '../app/consumer-app';
import type { MessageQueue } from '../model/message-queue';
import type { TransportPlugin } from '../spi/transport.plugin';
import { waitFor } from '../testing/wait-for';
import { EventBus } from './event-bus';
import type { MqkitEvent, MqkitEventName, MqkitEvents } from './event-map';
import { ofEvent } from './of-event';

const mq: MessageQueue = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
const consume: MqkitEvents['consumer.consume'] = { group: 'g', mq, count: 1, ok: 1, failed: 0, durationMs: 2 };
const failure: MqkitEvents['consumer.error'] = { group: 'g', where: 'handler', error: new Error('boom') };
const pull: MqkitEvents['consumer.pull'] = {
  group: 'g',
  mq,
  status: 'FOUND',
  found: 1,
  nextOffset: 1,
  maxOffset: 1,
  durationMs: 1,
};
const NAMES: MqkitEventName[] = ['consumer.consume', 'consumer.error', 'consumer.pull', 'producer.send'];

/** Every value `source` gives, and whether it completed. */
function record<T>(source: Observable<T>) {
  const seen = { values: [] as T[], completed: false };
  const subscription = source.subscribe({ next: (v) => seen.values.push(v), complete: () => (seen.completed = true) });
  return Object.assign(seen, { unsubscribe: () => subscription.unsubscribe() });
}

function listened(bus: EventBus): MqkitEventName[] {
  return NAMES.filter((name) => bus.has(name));
}

describe('EventBus as Observables', () => {
  it('events$ gives every event as { type, payload }, in order; checking type narrows payload', () => {
    const bus = new EventBus();
    const seen = record(bus.events$);
    bus.emit('consumer.consume', consume);
    bus.emit('consumer.error', failure);
    expect(seen.values).toEqual([
      { type: 'consumer.consume', payload: consume },
      { type: 'consumer.error', payload: failure },
    ]);
    expectTypeOf(bus.events$).toEqualTypeOf<Observable<MqkitEvent>>();
    const event = seen.values[1]!;
    if (event.type === 'consumer.error') expectTypeOf(event.payload).toEqualTypeOf<MqkitEvents['consumer.error']>();
    seen.unsubscribe();
  });

  it('ofEvent keeps the named events and types their payload; with several names, type tells which', () => {
    const bus = new EventBus();
    const errors: MqkitEvents['consumer.error'][] = [];
    bus.events$.pipe(ofEvent('consumer.error')).subscribe(({ payload }) => {
      expectTypeOf(payload).toEqualTypeOf<MqkitEvents['consumer.error']>();
      errors.push(payload);
    });
    const either = record(bus.events$.pipe(ofEvent('consumer.pull', 'consumer.consume')));
    expectTypeOf(either.values).toEqualTypeOf<MqkitEvent<'consumer.pull' | 'consumer.consume'>[]>();
    bus.emit('consumer.consume', consume);
    bus.emit('consumer.error', failure);
    bus.emit('consumer.pull', pull);
    expect(errors).toEqual([failure]);
    expect(either.values.map((e) => e.type)).toEqual(['consumer.consume', 'consumer.pull']);
    // @ts-expect-error: not an event name
    ofEvent('consumer.nope');
  });

  it('event$(name) gives that event’s payloads only', () => {
    const bus = new EventBus();
    const seen = record(bus.event$('consumer.error'));
    expectTypeOf(bus.event$('consumer.error')).toEqualTypeOf<Observable<MqkitEvents['consumer.error']>>();
    bus.emit('consumer.consume', consume);
    bus.emit('consumer.error', failure);
    expect(seen.values).toEqual([failure]);
  });

  it('events$ makes every event listened only while subscribed; unsubscribing restores has() and the flags', () => {
    const bus = new EventBus();
    const before = bus.listening('consumer.consume');
    bus.on('consumer.error', () => undefined);
    expect(listened(bus)).toEqual(['consumer.error']);
    const first = record(bus.events$);
    const second = record(bus.events$);
    expect(listened(bus)).toEqual(NAMES);
    expect(before.listened).toBe(true);
    // A flag a group makes while events$ is subscribed starts listened.
    const during = bus.listening('consumer.pull');
    expect(during.listened).toBe(true);
    first.unsubscribe();
    expect(listened(bus)).toEqual(NAMES);
    second.unsubscribe();
    second.unsubscribe();
    expect(listened(bus)).toEqual(['consumer.error']);
    expect([before.listened, during.listened, bus.listening('consumer.error').listened]).toEqual([false, false, true]);
  });

  it('event$(name) makes only that event listened, and unsubscribing restores it', () => {
    const bus = new EventBus();
    const flag = bus.listening('consumer.consume');
    const pulls = bus.listening('consumer.pull');
    const seen = record(bus.event$('consumer.consume'));
    expect(listened(bus)).toEqual(['consumer.consume']);
    expect([flag.listened, pulls.listened]).toEqual([true, false]);
    seen.unsubscribe();
    expect(listened(bus)).toEqual([]);
    expect(flag.listened).toBe(false);
  });

  it('an on() listener unsubscribed resets a flag made after it was added', () => {
    const bus = new EventBus();
    const off = bus.on('consumer.consume', () => undefined);
    const flag = bus.listening('consumer.consume');
    expect(flag.listened).toBe(true);
    off();
    expect(flag.listened).toBe(false);
  });

  describe('errors of one subscriber', () => {
    const original = config.onUnhandledError;
    afterEach(() => {
      config.onUnhandledError = original;
    });

    it('an observer that throws breaks neither the emitter nor the other subscribers and listeners', async () => {
      const reported: unknown[] = [];
      config.onUnhandledError = (error) => reported.push(error);
      const bus = new EventBus();
      bus.events$.subscribe(() => {
        throw new Error('observer fails');
      });
      bus.event$('consumer.consume').subscribe(() => {
        throw new Error('observer fails');
      });
      const others = record(bus.events$);
      const payloads = record(bus.event$('consumer.consume'));
      const heard: unknown[] = [];
      bus.on('consumer.consume', (p) => heard.push(p));
      expect(() => bus.emit('consumer.consume', consume)).not.toThrow();
      bus.emit('consumer.consume', consume);
      expect(others.values).toHaveLength(2);
      expect(payloads.values).toEqual([consume, consume]);
      expect(heard).toEqual([consume, consume]);
      // RxJS reports what an observer throws asynchronously, to config.onUnhandledError.
      await waitFor(() => reported.length === 4);
      expect(reported).toEqual(Array(4).fill(new Error('observer fails')));
    });

    it('an operator that throws ends its own subscription only, and unhooks its listener', () => {
      const bus = new EventBus();
      const errors: unknown[] = [];
      bus
        .event$('consumer.pull')
        .pipe(
          map(() => {
            throw new Error('operator fails');
          }),
        )
        .subscribe({ error: (e) => errors.push(e) });
      const others = record(bus.events$.pipe(ofEvent('consumer.consume')));
      expect(listened(bus)).toEqual(NAMES);
      bus.emit('consumer.pull', pull);
      expect(errors).toEqual([new Error('operator fails')]);
      others.unsubscribe();
      expect(listened(bus)).toEqual([]);
      const after = record(bus.events$);
      bus.emit('consumer.consume', consume);
      expect(after.values).toHaveLength(1);
    });
  });

  it('complete() completes every subscription and unhooks it; later ones complete at once; on() stays', () => {
    const bus = new EventBus();
    const all = record(bus.events$);
    const one = record(bus.event$('consumer.error'));
    const heard: unknown[] = [];
    bus.on('consumer.error', (p) => heard.push(p));
    bus.complete();
    bus.complete();
    expect([all.completed, one.completed]).toEqual([true, true]);
    expect(listened(bus)).toEqual(['consumer.error']);
    const late = record(bus.events$);
    expect(late.completed).toBe(true);
    bus.emit('consumer.error', failure);
    expect([all.values, one.values, late.values]).toEqual([[], [], []]);
    expect(heard).toEqual([failure]);
  });
});

describe("the app's events$ and event$", () => {
  /** A transport with nothing behind it: enough for an app without consumers to start and stop. */
  const transport: TransportPlugin = {
    kind: 'transport',
    name: 'fake',
    connect: async () => ({
      routes: { subscribeQueues: async () => [], publishQueues: async () => [] },
      membership: {
        heartbeat: async () => undefined,
        unregister: async () => undefined,
        consumerIds: async () => [],
        changes$: EMPTY,
      },
      puller: { pull: async () => Promise.reject(new Error('unused')) },
      offsets: {
        queryConsumerOffset: async () => -1,
        commitConsumerOffset: async () => undefined,
        minOffset: async () => 0,
        maxOffset: async () => 0,
        searchOffset: async () => 0,
      },
      close: async () => undefined,
    }),
  };

  it('give the app’s events and complete when it stops; subscribed after that, at once', async () => {
    const app = new ConsumerApp({ transport, consumers: [] });
    const all = record(app.events$);
    const errors = record(app.event$('consumer.error'));
    await app.start();
    app.events.emit('consumer.error', failure);
    expect(all.values).toEqual([{ type: 'consumer.error', payload: failure }]);
    expect(errors.values).toEqual([failure]);
    expect([all.completed, errors.completed]).toEqual([false, false]);
    await app.stop();
    expect([all.completed, errors.completed]).toEqual([true, true]);
    expect(app.events.has('consumer.error')).toBe(false);
    expect(record(app.events$).completed).toBe(true);
    expect(record(app.event$('consumer.consume')).completed).toBe(true);
  });

  it('complete when the app fails to start', async () => {
    const failing: TransportPlugin = {
      ...transport,
      connect: async () => Promise.reject(new Error('no broker')),
    };
    const app = new ConsumerApp({ transport: failing, consumers: [] });
    const all = record(app.events$);
    await expect(app.start()).rejects.toThrow('no broker');
    expect(all.completed).toBe(true);
  });
});
