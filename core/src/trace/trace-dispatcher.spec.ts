import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../events/event-bus';
import type { MqkitEvents } from '../events/event-map';
import { deferred } from '../util/deferred';
import { traceBean, type TraceContext } from './trace-context';
import { decodeTraceData } from './trace-data-encoder';
import { TraceDispatcher, type TraceDispatcherSettings } from './trace-dispatcher';
import { buildTraceMessages, type TraceMessage } from './trace-messages';

const settings: TraceDispatcherSettings = {
  producerGroup: 'tp',
  traceTopic: 'RMQ_SYS_TRACE_TOPIC',
  batchNum: 3,
  queueSize: 10,
  maxMsgSize: 128_000,
  flushIntervalMs: 5000,
  maxInFlight: 1,
};

function sub(msgId: string, topic = 'T', keys: string | null = null): TraceContext {
  return {
    traceType: 'SubBefore',
    timeStamp: 1,
    regionId: 'DefaultRegion',
    groupName: 'g',
    costTime: 0,
    success: true,
    requestId: 'R',
    contextCode: 0,
    traceBeans: [traceBean({ topic, msgId, keys })],
  };
}

afterEach(() => vi.useRealTimers());

describe('buildTraceMessages', () => {
  it('groups by traced topic in order of appearance and keys each message by every msgId and key', () => {
    const messages = buildTraceMessages([sub('A1', 'A', 'x y'), sub('B1', 'B'), sub('A2', 'A')], 128_000);
    expect(messages.map((m) => [m.topic, m.contexts, m.keys])).toEqual([
      ['A', 2, ['A1', 'x', 'y', 'A2']],
      ['B', 1, ['B1']],
    ]);
    expect(decodeTraceData(messages[0]!.body).map((c) => c.traceBeans[0]!.msgId)).toEqual(['A1', 'A2']);
  });

  it('cuts a message before a record that would take it past the size, never in the middle of a record', () => {
    const one = Buffer.byteLength(buildTraceMessages([sub('M0')], 1e6)[0]!.body);
    const messages = buildTraceMessages(
      ['M0', 'M1', 'M2', 'M3', 'M4'].map((id) => sub(id)),
      one * 2,
    );
    expect(messages.map((m) => m.contexts)).toEqual([2, 2, 1]);
    for (const m of messages) expect(Buffer.byteLength(m.body)).toBeLessThanOrEqual(one * 2);
  });

  it('cuts before the keys outgrow the properties a broker takes', () => {
    const longKeys = Array.from({ length: 300 }, (_, i) => `key-${String(i).padStart(40, '0')}`).join(' ');
    const messages = buildTraceMessages(
      [sub('A', 'T', longKeys), sub('B', 'T', longKeys.replace(/key/g, 'other'))],
      1e6,
    );
    expect(messages).toHaveLength(2);
  });
});

describe('TraceDispatcher', () => {
  it('sends a full batch at once and a partial one after the flush interval', async () => {
    vi.useFakeTimers();
    const sent: TraceMessage[] = [];
    const dispatcher = new TraceDispatcher(settings, async (m) => void sent.push(m), new EventBus());
    for (const id of ['1', '2', '3', '4']) dispatcher.append(sub(id));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.map((m) => m.contexts)).toEqual([3]);
    expect(dispatcher.status()).toMatchObject({ queued: 1, sent: 3 });
    await vi.advanceTimersByTimeAsync(4_900);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(sent.map((m) => m.contexts)).toEqual([3, 1]);
    expect(dispatcher.status()).toMatchObject({ queued: 0, sending: 0, sent: 4, dropped: 0, failed: 0 });
  });

  it('drops and counts what a full queue cannot take, reporting trace.dropped, while sends are slow', async () => {
    const events = new EventBus();
    const reports: MqkitEvents['trace.dropped'][] = [];
    events.on('trace.dropped', (e) => reports.push(e));
    const gate = deferred<void>();
    const dispatcher = new TraceDispatcher({ ...settings, queueSize: 4 }, () => gate.promise, events);
    const accepted = Array.from({ length: 12 }, (_, i) => dispatcher.append(sub(`m${i}`)));
    // 3 went out in the one send in flight, 4 wait, the other 5 were dropped.
    expect(accepted.filter(Boolean)).toHaveLength(7);
    expect(dispatcher.status()).toMatchObject({ sending: 3, queued: 4, dropped: 5 });
    expect(reports).toHaveLength(5);
    expect(reports[4]).toMatchObject({
      producerGroup: 'tp',
      traceTopic: 'RMQ_SYS_TRACE_TOPIC',
      reason: 'queue-full',
      contexts: 1,
      dropped: 5,
    });
    gate.resolve();
    await dispatcher.stop();
    expect(dispatcher.status()).toMatchObject({ queued: 0, sending: 0, sent: 7, dropped: 5, failed: 0 });
  });

  it('counts a trace message that failed as failed, and goes on with the next', async () => {
    const events = new EventBus();
    const reports: MqkitEvents['trace.dropped'][] = [];
    events.on('trace.dropped', (e) => reports.push(e));
    let calls = 0;
    const dispatcher = new TraceDispatcher(
      settings,
      async () => {
        if (++calls === 1) throw new Error('broker busy');
      },
      events,
    );
    for (let i = 0; i < 6; i++) dispatcher.append(sub(`m${i}`));
    await dispatcher.stop();
    expect(dispatcher.status()).toMatchObject({ sent: 3, failed: 3 });
    expect(reports).toEqual([
      expect.objectContaining({
        reason: 'send-failed',
        contexts: 3,
        failed: 3,
        error: expect.objectContaining({ message: 'broker busy' }),
      }),
    ]);
  });

  it('stop() sends what is queued without waiting for the interval, then refuses new records', async () => {
    const sent: TraceMessage[] = [];
    const dispatcher = new TraceDispatcher(
      { ...settings, maxInFlight: 2 },
      async (m) => void sent.push(m),
      new EventBus(),
    );
    dispatcher.append(sub('a'));
    dispatcher.append(sub('b'));
    await dispatcher.stop();
    expect(sent.map((m) => m.contexts)).toEqual([2]);
    expect(dispatcher.append(sub('c'))).toBe(false);
    expect(dispatcher.status()).toMatchObject({ sent: 2, dropped: 1 });
  });
});
