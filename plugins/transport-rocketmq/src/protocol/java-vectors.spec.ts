import { describe, expect, it } from 'vitest';
import { decodeBatchBody, encodeBatchBody } from './batch-body.codec';
import { fastJsonEntries, parseFastJson } from './fastjson.parser';
import { decodeCommand, encodeCommand } from './frame.codec';
import { decodeMessageRecords } from './message-record.decoder';
import { encodeMessageRecord } from './message-record.encoder';
import { SerializeType } from './remoting-codes';
import { remotingCommand } from './remoting-command';

/*
 * Bytes and text produced by RocketMQ 5.3.3's own classes (rocketmq-common/-remoting/-client jars, run on
 * Java 17): MessageDecoder.encode, RemotingCommand.encode (JSON and ROCKETMQ), MessageBatch.encode and fastjson's
 * RemotingSerializable.toJson. Our decoders must read them and our encoders must reproduce them.
 */
const hex = (h: string): Buffer => Buffer.from(h, 'hex');

const REC1 = hex(
  '00000074DAA320A71234567800000003000000070000000000000029000000000001E240000000000000018BCFE56800C0A801140000D431' +
    '0000018BCFE5687B7F00000100002A9F0000000200000000000000000000000568656C6C6F09546F70696354657374000B636F6C6F7201626C756502',
);
const REC6 = hex(
  '00000077DAA320A7000000000000000000000000001FFFFFFFFFFFFF000000010000000000000030000000000000000120010DB800000000' +
    '000000000000000500009C4000000000000000020000000000000000000000000000000100002A9F0000000000000000000000000000000276360254360000',
);
const RECZ = hex(
  '00000089DAA320A7000000000000000000000000000000000000000000000000000000000000030100000000000000000A0000010000000100000000' +
    '000000000A000002000000020000000000000000000000000000002C785EEDC6490100200800B0AC7820DA3F8029F86DAFC5986BE7A9FBC2CCCCCC' +
    'CCCCCCCCCCCC9AF6015715BED602545A0000',
);
const BIN_FRAME = hex(
  '000000460100004200150001DF0000004D00000001000000154F46465345545F4F564552464C4F575F4241444C5900000018000F6E657874426567696E4F666673657400000003313030',
);
const JSON_FRAME = hex(
  '00000089000000827B22636F6465223A33382C226578744669656C6473223A7B22636F6E73756D657247726F7570223A2247227D2C22666C6167223A30' +
    '2C226C616E6775616765223A224A415641222C226F7061717565223A352C2273657269616C697A655479706543757272656E74525043223A224A534F4E222C2276657273696F6E223A3437397D78797A',
);
const BATCH = hex(
  '00000035000000000000000000000000000000036F6E65001C4B455953016B31025741495401747275650254414753015461674102000000230000000000000000000000030000000374776F000A57414954017472756502',
);

describe('vectors from RocketMQ 5.3.3', () => {
  it('decodes MessageDecoder.encode output and re-encodes it byte for byte (IPv4)', () => {
    const [r] = decodeMessageRecords(REC1, { brokerName: 'broker-a' });
    expect(r).toMatchObject({
      topic: 'TopicTest',
      queueId: 3,
      flag: 7,
      queueOffset: 41,
      commitLogOffset: 123456,
      sysFlag: 0,
      bornTimestamp: 1700000000000,
      bornHost: '192.168.1.20:54321',
      storeTimestamp: 1700000000123,
      storeHost: '127.0.0.1:10911',
      reconsumeTimes: 2,
      preparedTransactionOffset: 0,
      bodyCRC: 0x12345678,
      storeSize: 116,
      properties: { color: 'blue' },
      offsetMsgId: '7F00000100002A9F000000000001E240', // MessageDecoder.decode(...).getMsgId()
    });
    expect(r!.body.toString()).toBe('hello');
    expect(encodeMessageRecord(r!)).toEqual(REC1);
  });

  it("decodes IPv6 born and store hosts and Java's 56-char msgId", () => {
    const [r] = decodeMessageRecords(REC6, { brokerName: 'b' });
    // Java prints /[2001:db8:0:0:0:0:0:5]:40000 and /[0:0:0:0:0:0:0:1]:10911
    expect(r).toMatchObject({
      topic: 'T6',
      bornHost: '[2001:db8::5]:40000',
      storeHost: '[::1]:10911',
      queueOffset: Number.MAX_SAFE_INTEGER,
      commitLogOffset: 4294967296,
    });
    expect(r!.offsetMsgId).toBe('0000000000000000000000000000000100002A9F0000000100000000');
    expect(encodeMessageRecord({ ...r!, bodyCRC: 0 })).toEqual(REC6);
  });

  it('inflates a body Java compressed (sysFlag 0x301) and clears COMPRESSED as Java does (768)', () => {
    const [r] = decodeMessageRecords(RECZ, { brokerName: 'b' });
    expect(r!.body.toString()).toBe('abcdefghij'.repeat(500));
    expect(r!.sysFlag).toBe(768);
  });

  it('decodes a ROCKETMQ-header response and encodes the same bytes', () => {
    const cmd = decodeCommand(BIN_FRAME.subarray(4));
    expect(cmd).toMatchObject({
      code: 21,
      language: 'JAVA',
      version: 479,
      opaque: 77,
      flag: 1,
      remark: 'OFFSET_OVERFLOW_BADLY',
      extFields: { nextBeginOffset: '100' },
    });
    expect(cmd.serializeType).toBe(SerializeType.ROCKETMQ);
    expect(encodeCommand(cmd)).toEqual(BIN_FRAME);
  });

  it('decodes a JSON-header request and encodes the same bytes (fastjson key order)', () => {
    const cmd = decodeCommand(JSON_FRAME.subarray(4));
    expect(cmd).toMatchObject({ code: 38, opaque: 5, version: 479, flag: 0, extFields: { consumerGroup: 'G' } });
    expect(cmd.body.toString()).toBe('xyz');
    const ours = remotingCommand({
      code: 38,
      opaque: 5,
      version: 479,
      language: 'JAVA',
      extFields: { consumerGroup: 'G' },
      body: Buffer.from('xyz'),
    });
    expect(encodeCommand(ours)).toEqual(JSON_FRAME);
  });

  it('decodes MessageBatch.encode output and encodes the same bytes', () => {
    const entries = decodeBatchBody(BATCH);
    expect(entries.map(({ flag, body, properties }) => ({ flag, body: body.toString(), properties }))).toEqual([
      { flag: 0, body: 'one', properties: { KEYS: 'k1', WAIT: 'true', TAGS: 'TagA' } },
      { flag: 3, body: 'two', properties: { WAIT: 'true' } },
    ]);
    expect(encodeBatchBody(entries)).toEqual(BATCH);
  });

  it("parses fastjson's ResetOffsetBody (object keys, a long beyond 2^53) and TopicRouteData (bare numeric keys)", () => {
    const reset = parseFastJson(
      '{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5,{"brokerName":"broker-a","queueId":1,"topic":"T"}:9007199254740993}}',
    ) as { offsetTable: Parameters<typeof fastJsonEntries>[0] };
    expect(fastJsonEntries(reset.offsetTable)).toEqual([
      [{ brokerName: 'broker-a', queueId: 0, topic: 'T' }, 5],
      [{ brokerName: 'broker-a', queueId: 1, topic: 'T' }, 9007199254740993n],
    ]);
    const route = parseFastJson(
      '{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}],' +
        '"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}',
    );
    expect(route).toMatchObject({
      brokerDatas: [{ brokerAddrs: { 0: '127.0.0.1:10911', 1: '127.0.0.1:10921' } }],
      queueDatas: [{ perm: 6, readQueueNums: 4 }],
    });
  });
});
