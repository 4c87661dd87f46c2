import { encodeBatchBody } from '../protocol/batch-body.codec';
import { encodeCommand } from '../protocol/frame.codec';
import { encodeMessageRecord, type MessageRecordInput } from '../protocol/message-record.encoder';
import { MessageSysFlag, RequestCode, ResponseCode, SerializeType } from '../protocol/remoting-codes';
import { remotingCommand } from '../protocol/remoting-command';

/** What a fuzz input is fed to. */
export type FuzzTarget = 'frame' | 'record' | 'batch' | 'fastjson';
export const FUZZ_TARGETS: readonly FuzzTarget[] = ['frame', 'record', 'batch', 'fastjson'];

const base: MessageRecordInput = {
  topic: 'TopicTest',
  queueId: 1,
  queueOffset: 100,
  commitLogOffset: 4096,
  flag: 0,
  body: Buffer.from('{"order":42}'),
  properties: { TAGS: 'TagA', KEYS: 'k1 k2', UNIQ_KEY: '7F0000010001000000000000', WAIT: 'true' },
  bornTimestamp: 1700000000000,
  bornHost: '10.0.0.5:50000',
  storeTimestamp: 1700000000100,
  storeHost: '127.0.0.1:10911',
};

/** Valid stored records covering every decoder branch: V1/V2, IPv6 hosts, ZLIB (both flag forms), LZ4, inner batch. */
function records(): Buffer[] {
  const inner = encodeBatchBody([
    { flag: 1, body: Buffer.from('a'), properties: { TAGS: 'x' } },
    { flag: 2, body: Buffer.from('bb'), properties: { TAGS: 'y', UNIQ_KEY: 'U2' } },
  ]);
  return [
    encodeMessageRecord(base),
    encodeMessageRecord({ ...base, properties: {}, body: Buffer.alloc(0) }),
    encodeMessageRecord({ ...base, topic: `%RETRY%${'g'.repeat(140)}`, reconsumeTimes: 3 }),
    encodeMessageRecord({ ...base, bornHost: '[2001:db8::5]:40000', storeHost: '[::1]:10911' }),
    encodeMessageRecord({ ...base, bornHost: '[::ffff:10.0.0.1]:1', storeHost: '[::ffff:127.0.0.1]:10911' }),
    encodeMessageRecord({ ...base, sysFlag: 0x301, body: Buffer.from('compress me '.repeat(40)) }),
    encodeMessageRecord({ ...base, sysFlag: 0x1, body: Buffer.from('4.x producer '.repeat(20)) }),
    encodeMessageRecord({ ...base, sysFlag: 0x101, body: Buffer.from('lz4 bytes') }),
    encodeMessageRecord({
      ...base,
      sysFlag: MessageSysFlag.INNER_BATCH | MessageSysFlag.NEED_UNWRAP,
      body: inner,
      properties: {},
    }),
    Buffer.concat([
      encodeMessageRecord(base),
      encodeMessageRecord({ ...base, queueOffset: 101 }),
      encodeMessageRecord({ ...base, queueOffset: 102 }),
    ]),
  ];
}

function batches(): Buffer[] {
  return [
    encodeBatchBody([{ flag: 0, body: Buffer.from('one'), properties: { KEYS: 'k1', WAIT: 'true', TAGS: 'TagA' } }]),
    encodeBatchBody([
      { flag: 3, body: Buffer.from('two'), properties: { WAIT: 'true' } },
      { flag: 0, body: Buffer.alloc(0), properties: {} },
    ]),
  ];
}

function frames(pullBody: Buffer): Buffer[] {
  const json = (fields: Parameters<typeof remotingCommand>[0]): Buffer =>
    encodeCommand(remotingCommand({ language: 'JAVA', version: 479, ...fields }));
  const pull = json({
    code: ResponseCode.SUCCESS,
    opaque: 7,
    flag: 1,
    remark: 'FOUND',
    extFields: { nextBeginOffset: '103', minOffset: '0', maxOffset: '103', suggestWhichBrokerId: '0' },
    body: pullBody,
  });
  return [
    pull,
    json({ code: RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, opaque: 1, flag: 2, extFields: { consumerGroup: 'g' } }),
    json({
      code: RequestCode.GET_CONSUMER_RUNNING_INFO,
      opaque: 2,
      extFields: { consumerGroup: 'g', clientId: '10.0.0.5@1', jstackEnable: 'false' },
    }),
    json({
      code: ResponseCode.PULL_NOT_FOUND,
      opaque: 8,
      flag: 1,
      remark: 'OFFSET_OVERFLOW_ONE',
      extFields: { nextBeginOffset: '5' },
    }),
    encodeCommand(
      remotingCommand({
        code: ResponseCode.PULL_OFFSET_MOVED,
        opaque: 77,
        flag: 1,
        language: 'JAVA',
        version: 479,
        remark: 'OFFSET_OVERFLOW_BADLY',
        extFields: { nextBeginOffset: '100', minOffset: '0' },
        serializeType: SerializeType.ROCKETMQ,
      }),
    ),
    encodeCommand(
      remotingCommand({
        code: ResponseCode.SUCCESS,
        opaque: 9,
        flag: 1,
        language: 'JAVA',
        version: 479,
        extFields: { a: '1' },
        body: pullBody,
        serializeType: SerializeType.ROCKETMQ,
      }),
    ),
    Buffer.concat([pull, json({ code: 0, opaque: 3, flag: 1 })]),
  ];
}

function fastjsonTexts(): Buffer[] {
  return [
    '{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5,{"brokerName":"broker-a","queueId":1,"topic":"T"}:9007199254740993}}',
    '{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}',
    '{"consumerIdList":["10.0.0.5@1#123","10.0.0.6@2"]}',
    '{"a":[1,-2.5e3,true,false,null,"\\u00e9\\n"],\'b\':{x:1}}',
  ].map((t) => Buffer.from(t, 'utf8'));
}

/** The valid inputs each target's mutations start from, built by the package's own encoders. */
export function buildCorpus(): Readonly<Record<FuzzTarget, readonly Buffer[]>> {
  const record = records();
  return { frame: frames(Buffer.concat(record.slice(0, 4))), record, batch: batches(), fastjson: fastjsonTexts() };
}
