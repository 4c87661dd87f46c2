import { describe, expect, it } from 'vitest';
import { jsonCodec } from '../definition/json.codec';
import { ConsumeStatus } from '../model/constants';
import type { OutgoingMessage } from '../model/outgoing-message';
import { runEndTransactionHooks, runSendHooks, type SendKind } from '../spi/send-hook';
import type { ConsumeInvocation } from '../spi/consume-hook';
import { ConsumedMessage } from '../model/consumed-message';
import { MQ, record } from '../consumer/runtime.fixture';
import type { SendResult } from '../spi/transport.roles';
import { consumeTraceHook } from './consume-trace.hook';
import { sendTraceHook } from './send-trace.hook';
import type { TraceContext } from './trace-context';

/** A dispatcher that accepts every context and keeps it in `appended`. */
function recordingDispatcher(appended: TraceContext[]): { append(ctx: TraceContext): boolean } {
  return {
    append: (ctx) => {
      appended.push(ctx);
      return true;
    },
  };
}

/** 127.0.0.1:10911 (7F000001, 00002A9F) and commit-log offset 0x2329. */
const OFFSET_MSG_ID = '7F00000100002A9F0000000000002329';
const result = (msgId: string, status: SendResult['status'] = 'SEND_OK'): SendResult => ({
  status,
  msgId,
  offsetMsgId: OFFSET_MSG_ID,
  messageQueue: { topic: 'T', brokerName: 'b', queueId: 0 },
  queueOffset: 0,
});

function sendTracer() {
  const appended: TraceContext[] = [];
  const hook = sendTraceHook({
    dispatcher: recordingDispatcher(appended),
    traceTopic: 'RMQ_SYS_TRACE_TOPIC',
    bodyLength: (m) => Buffer.byteLength(String(m.body ?? JSON.stringify(m.payload))),
  });
  const send = (kind: SendKind, messages: OutgoingMessage[], results: SendResult[]) =>
    runSendHooks(
      [hook],
      { group: 'pg', namespace: undefined, kind, messages },
      async () => results,
      (r) => r,
    );
  return { hook, appended, send };
}

describe('sendTraceHook (SendMessageTraceHookImpl)', () => {
  it('one Pub per stored message: group, topic, tags, keys, store host from the offset id, body length, type and status', async () => {
    const { appended, send } = sendTracer();
    const before = Date.now();
    await send('send', [{ topic: 'T', body: 'hello', tags: 'A', keys: ['k1', 'k2'] }], [result('ID1')]);
    await send(
      'batch',
      [
        { topic: 'T', payload: { n: 1 } },
        { topic: 'T', body: 'x', delayTimeLevel: 3 },
      ],
      [result('ID2'), result('ID3', 'FLUSH_DISK_TIMEOUT')],
    );
    await send('transaction', [{ topic: 'T', body: 'half' }], [result('ID4')]);
    expect(appended.map((c) => [c.traceType, c.traceBeans[0]!.msgId, c.traceBeans[0]!.msgType, c.success])).toEqual([
      ['Pub', 'ID1', 0, true],
      ['Pub', 'ID2', 0, true],
      ['Pub', 'ID3', 3, false],
      ['Pub', 'ID4', 1, true],
    ]);
    expect(appended[0]).toMatchObject({ regionId: 'DefaultRegion', groupName: 'pg' });
    expect(appended[0]!.timeStamp).toBeGreaterThanOrEqual(before);
    expect(appended[0]!.traceBeans[0]).toMatchObject({
      topic: 'T',
      tags: 'A',
      keys: 'k1 k2',
      storeHost: '127.0.0.1:10911',
      bodyLength: 5,
      offsetMsgId: OFFSET_MSG_ID,
    });
    expect(appended[1]!.traceBeans[0]).toMatchObject({ tags: null, keys: null, bodyLength: 7 });
  });

  it('traces no oneway send, no request, no send to the trace topic, and no failed send', async () => {
    const { appended, send } = sendTracer();
    await send('oneway', [{ topic: 'T', body: 'x' }], []);
    await send('request', [{ topic: 'T', body: 'x' }], []);
    await send('send', [{ topic: 'RMQ_SYS_TRACE_TOPIC', body: 'x' }], [result('ID')]);
    const { hook } = sendTracer();
    await expect(
      runSendHooks(
        [hook],
        { group: 'pg', namespace: undefined, kind: 'send', messages: [{ topic: 'T', body: 'x' }] },
        () => Promise.reject(new Error('down')),
        () => [],
      ),
    ).rejects.toThrow('down');
    expect(appended).toEqual([]);
  });

  it('an EndTransaction record per outcome (EndTransactionTraceHookImpl): Trans_msg_Commit, the state, the check-back flag', () => {
    const { hook, appended } = sendTracer();
    runEndTransactionHooks(
      [hook],
      {
        group: 'pg',
        message: { topic: 'T', tags: undefined, keys: ['k'], properties: { MSG_REGION: 'r1' } },
        msgId: 'ID',
        storeHost: '127.0.0.1:10911',
        transactionId: 'ID',
        state: 'ROLLBACK_MESSAGE',
        fromTransactionCheck: true,
      },
      (e) => {
        throw e;
      },
    );
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({ traceType: 'EndTransaction', regionId: 'r1', groupName: 'pg' });
    expect(appended[0]!.traceBeans[0]).toMatchObject({
      topic: 'T',
      msgId: 'ID',
      tags: null,
      keys: 'k',
      storeHost: '127.0.0.1:10911',
      msgType: 2,
      transactionId: 'ID',
      transactionState: 'ROLLBACK_MESSAGE',
      fromTransactionCheck: true,
    });
  });
});

function consumeCall(messages: ConsumedMessage[], signal = new AbortController().signal): ConsumeInvocation {
  return {
    group: 'ns%cg',
    namespace: 'ns',
    messageModel: 'CLUSTERING',
    mq: MQ,
    messages,
    batch: messages.length > 1,
    context: {
      group: 'ns%cg',
      mq: MQ,
      signal,
      ackIndex: 0,
      delayLevelWhenNextConsume: 0,
      suspendCurrentQueueTimeMillis: -1,
    },
    handler: { className: 'C', method: 'handle' },
  };
}
const message = (offset: number, properties: Record<string, string> = {}, reconsumeTimes = 0) =>
  new ConsumedMessage(record(offset, { properties, reconsumeTimes }), MQ, jsonCodec, offset);

describe('consumeTraceHook (ConsumeMessageTraceHookImpl)', () => {
  it('SubBefore then SubAfter with one request id; group without the namespace; region from MSG_REGION', async () => {
    const appended: TraceContext[] = [];
    const hook = consumeTraceHook(recordingDispatcher(appended));
    const messages = [
      message(1, { KEYS: 'a b', MSG_REGION: 'r1', TRACE_ON: 'true' }, 2),
      message(2, { TRACE_ON: 'false' }),
    ];
    await expect(hook.around(consumeCall(messages), async () => 'done')).resolves.toBe('done');
    const [before, after] = appended;
    expect(before).toMatchObject({ traceType: 'SubBefore', groupName: 'cg', regionId: 'r1' });
    expect(before!.traceBeans).toEqual([
      expect.objectContaining({ msgId: 'K1', retryTimes: 2, keys: 'a b', topic: 'T' }),
    ]);
    expect(after).toMatchObject({
      traceType: 'SubAfter',
      requestId: before!.requestId,
      success: true,
      contextCode: 0,
      groupName: 'cg',
      accessChannel: 'LOCAL',
    });
    expect(before!.requestId).toMatch(/^[0-9A-F]{32}$/);
    expect(after!.timeStamp).toBeGreaterThanOrEqual(before!.timeStamp);
  });

  it('context codes: EXCEPTION for a throw (rethrown), FAILED for RECONSUME_LATER, TIME_OUT for a call given up', async () => {
    const appended: TraceContext[] = [];
    const hook = consumeTraceHook(recordingDispatcher(appended));
    await expect(hook.around(consumeCall([message(1)]), () => Promise.reject(new Error('bad')))).rejects.toThrow('bad');
    await hook.around(consumeCall([message(2)]), async () => ConsumeStatus.RECONSUME_LATER);
    const given = new AbortController();
    given.abort();
    await hook.around(consumeCall([message(3)], given.signal), async () => undefined);
    const afters = appended.filter((c) => c.traceType === 'SubAfter').map((c) => [c.success, c.contextCode]);
    expect(afters).toEqual([
      [false, 2],
      [false, 4],
      [false, 1],
    ]);
  });

  it('a call whose every message says TRACE_ON=false is not traced', async () => {
    const appended: TraceContext[] = [];
    const hook = consumeTraceHook(recordingDispatcher(appended));
    await hook.around(consumeCall([message(1, { TRACE_ON: 'false' })]), async () => undefined);
    expect(appended).toEqual([]);
  });
});
