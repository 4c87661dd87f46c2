import { describe, expect, it } from 'vitest';
import { MessageType, traceBean, type TraceContext } from './trace-context';
import { decodeTraceData, encodeTraceContext } from './trace-data-encoder';

/*
 * Expected strings are written out from RocketMQ 5.3.3's TraceDataEncoder.encoderFromContextBean, read append by
 * append (\x01 = CONTENT_SPLITOR, \x02 = FIELD_SPLITOR). The Pub vector is the one of Java's own
 * TraceDataEncoderTest.testEncoderFromContextBean.
 */
const TIME = 1_700_000_000_123;
const base = {
  timeStamp: TIME,
  regionId: 'DefaultRegion',
  groupName: 'PID-test',
  costTime: 0,
  success: true,
  requestId: '',
  contextCode: 0,
};

describe('encodeTraceContext: TraceDataEncoder byte for byte', () => {
  it('Pub: 14 fields, no client host, the msgType ordinal and the success flag last', () => {
    const ctx: TraceContext = {
      ...base,
      traceType: 'Pub',
      costTime: 245,
      traceBeans: [
        traceBean({
          topic: 'topic-test',
          msgId: 'AC1415116D1418B4AAC217FE1B4E0000',
          tags: 'Tags',
          keys: 'Keys',
          storeHost: '127.0.0.1:10911',
          bodyLength: 26,
          msgType: MessageType.Normal_Msg,
          offsetMsgId: '0A9A002600002A9F0000000000002329',
        }),
      ],
    };
    const { data, keys } = encodeTraceContext(ctx);
    expect(data).toBe(
      `Pub\x01${TIME}\x01DefaultRegion\x01PID-test\x01topic-test\x01AC1415116D1418B4AAC217FE1B4E0000\x01Tags\x01Keys\x01127.0.0.1:10911\x0126\x01245\x010\x010A9A002600002A9F0000000000002329\x01true\x02`,
    );
    expect(keys).toEqual(['AC1415116D1418B4AAC217FE1B4E0000', 'Keys']);
  });

  it('Pub of a message without tags or keys writes Java\'s "null" and is keyed by its msgId alone', () => {
    const ctx: TraceContext = {
      ...base,
      traceType: 'Pub',
      success: false,
      costTime: 3,
      traceBeans: [
        traceBean({
          topic: 't',
          msgId: 'ID1',
          tags: null,
          keys: null,
          storeHost: '10.0.0.1:10911',
          bodyLength: 0,
          msgType: MessageType.Delay_Msg,
          offsetMsgId: 'OFF',
        }),
      ],
    };
    const { data, keys } = encodeTraceContext(ctx);
    expect(data).toBe(
      `Pub\x01${TIME}\x01DefaultRegion\x01PID-test\x01t\x01ID1\x01null\x01null\x0110.0.0.1:10911\x010\x013\x013\x01OFF\x01false\x02`,
    );
    expect(keys).toEqual(['ID1']);
  });

  it('SubBefore: one record per bean with the request id, retry times and keys', () => {
    const ctx: TraceContext = {
      ...base,
      traceType: 'SubBefore',
      groupName: 'CID-test',
      requestId: 'REQ',
      traceBeans: [
        traceBean({ topic: 't', msgId: 'ID1', retryTimes: 0, keys: 'k1 k2' }),
        traceBean({ topic: 't', msgId: 'ID2', retryTimes: 3, keys: null }),
      ],
    };
    const { data, keys } = encodeTraceContext(ctx);
    expect(data).toBe(
      `SubBefore\x01${TIME}\x01DefaultRegion\x01CID-test\x01REQ\x01ID1\x010\x01k1 k2\x02SubBefore\x01${TIME}\x01DefaultRegion\x01CID-test\x01REQ\x01ID2\x013\x01null\x02`,
    );
    expect(keys).toEqual(['ID1', 'k1', 'k2', 'ID2']);
  });

  it('SubAfter: request id, msgId, cost, success, keys, context code, then time and group (LOCAL access channel)', () => {
    const ctx: TraceContext = {
      ...base,
      traceType: 'SubAfter',
      groupName: 'CID-test',
      requestId: 'REQ',
      costTime: 12,
      success: false,
      contextCode: 4,
      accessChannel: 'LOCAL',
      traceBeans: [traceBean({ topic: 't', msgId: 'ID1', keys: 'k1' })],
    };
    expect(encodeTraceContext(ctx).data).toBe(
      `SubAfter\x01REQ\x01ID1\x0112\x01false\x01k1\x014\x01${TIME}\x01CID-test\x02`,
    );
    // CLOUD stops after the context code's separator.
    expect(encodeTraceContext({ ...ctx, accessChannel: 'CLOUD' }).data).toBe(
      `SubAfter\x01REQ\x01ID1\x0112\x01false\x01k1\x014\x01\x02`,
    );
  });

  it('EndTransaction: the state by name and fromTransactionCheck last', () => {
    const ctx: TraceContext = {
      ...base,
      traceType: 'EndTransaction',
      traceBeans: [
        traceBean({
          topic: 'topic-test',
          msgId: 'ID1',
          tags: 'Tags',
          keys: 'Keys',
          storeHost: '127.0.0.1:10911',
          msgType: MessageType.Trans_msg_Commit,
          transactionId: 'transactionId',
          transactionState: 'COMMIT_MESSAGE',
          fromTransactionCheck: false,
        }),
      ],
    };
    expect(encodeTraceContext(ctx).data).toBe(
      `EndTransaction\x01${TIME}\x01DefaultRegion\x01PID-test\x01topic-test\x01ID1\x01Tags\x01Keys\x01127.0.0.1:10911\x012\x01transactionId\x01COMMIT_MESSAGE\x01false\x02`,
    );
  });

  it('keys split on single spaces as String.split does: inner empty keys stay, trailing ones go, duplicates once', () => {
    const ctx: TraceContext = {
      ...base,
      traceType: 'SubBefore',
      traceBeans: [traceBean({ msgId: 'ID', keys: 'a  b ID a ' })],
    };
    expect(encodeTraceContext(ctx).keys).toEqual(['ID', 'a', '', 'b']);
  });
});

describe('decodeTraceData: TraceDataEncoder.decoderFromTraceDataString', () => {
  it('reads back what the encoder wrote, record by record', () => {
    const pub: TraceContext = {
      ...base,
      traceType: 'Pub',
      costTime: 7,
      traceBeans: [
        traceBean({
          topic: 't',
          msgId: 'ID1',
          tags: 'A',
          keys: 'k',
          storeHost: 'h:1',
          bodyLength: 5,
          msgType: MessageType.Trans_Msg_Half,
          offsetMsgId: 'OFF',
        }),
      ],
    };
    const after: TraceContext = {
      ...base,
      traceType: 'SubAfter',
      requestId: 'R',
      costTime: 2,
      success: true,
      contextCode: 0,
      traceBeans: [traceBean({ topic: 't', msgId: 'ID1', keys: 'k' })],
    };
    const [p, a] = decodeTraceData(encodeTraceContext(pub).data + encodeTraceContext(after).data);
    expect(p).toMatchObject({
      traceType: 'Pub',
      timeStamp: TIME,
      regionId: 'DefaultRegion',
      groupName: 'PID-test',
      costTime: 7,
      success: true,
    });
    expect(p!.traceBeans[0]).toMatchObject({
      topic: 't',
      msgId: 'ID1',
      tags: 'A',
      keys: 'k',
      storeHost: 'h:1',
      bodyLength: 5,
      msgType: 1,
      offsetMsgId: 'OFF',
    });
    expect(a).toMatchObject({
      traceType: 'SubAfter',
      requestId: 'R',
      costTime: 2,
      success: true,
      contextCode: 0,
      timeStamp: TIME,
      groupName: 'PID-test',
    });
  });

  it("takes old clients' shorter records (a 13-field Pub, a 15-field Pub with the client host) and skips unknown types", () => {
    const old13 = `Pub\x011\x01r\x01g\x01t\x01ID\x01tag\x01key\x01h:1\x013\x014\x010\x01false\x02`;
    const old15 = `Pub\x011\x01r\x01g\x01t\x01ID\x01tag\x01key\x01h:1\x013\x014\x010\x01OFF\x01true\x0110.1.1.1\x02`;
    const [a, b] = decodeTraceData(`${old13}Unknown\x01x\x02${old15}`);
    expect(a).toMatchObject({ success: false });
    expect(a!.traceBeans[0]!.offsetMsgId).toBe('');
    expect(b!.traceBeans[0]).toMatchObject({ offsetMsgId: 'OFF', clientHost: '10.1.1.1' });
    expect(decodeTraceData('')).toEqual([]);
  });
});
