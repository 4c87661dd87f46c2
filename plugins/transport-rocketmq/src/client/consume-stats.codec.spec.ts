import { describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import { remotingCommand } from '../protocol/remoting-command';
import { consumeStatsRequest, parseConsumeStats } from './consume-stats.codec';

const answer = (body: string, code = 0, remark?: string) =>
  remotingCommand({ code, opaque: 1, flag: 1, remark, body: Buffer.from(body) });

describe('consume stats codec', () => {
  it('asks for the whole group (no topic, no topicList), as examineConsumeStats(group) does', () => {
    expect(consumeStatsRequest('g')).toEqual({
      code: RequestCode.GET_CONSUME_STATS,
      extFields: { consumerGroup: 'g' },
    });
  });

  it('reads ConsumeStats as a 5.3.3 broker writes it: MessageQueue objects as keys, a double consumeTps', () => {
    const body =
      '{"consumeTps":1.5,"offsetTable":{' +
      '{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"brokerOffset":10,"consumerOffset":4,"lastTimestamp":1718000000123,"pullOffset":4},' +
      '{"brokerName":"broker-a","queueId":1,"topic":"T"}:{"brokerOffset":0,"consumerOffset":0,"lastTimestamp":0,"pullOffset":0},' +
      '{"brokerName":"broker-a","queueId":0,"topic":"%RETRY%g"}:{"brokerOffset":2,"consumerOffset":2,"lastTimestamp":1718000000999,"pullOffset":2}}}';
    expect(parseConsumeStats(answer(body), 'g', 'broker-a')).toEqual([
      {
        mq: { topic: 'T', brokerName: 'broker-a', queueId: 0 },
        brokerOffset: 10,
        consumerOffset: 4,
        lastTimestamp: 1718000000123,
      },
      { mq: { topic: 'T', brokerName: 'broker-a', queueId: 1 }, brokerOffset: 0, consumerOffset: 0, lastTimestamp: 0 },
      {
        mq: { topic: '%RETRY%g', brokerName: 'broker-a', queueId: 0 },
        brokerOffset: 2,
        consumerOffset: 2,
        lastTimestamp: 1718000000999,
      },
    ]);
    expect(parseConsumeStats(answer('{"consumeTps":0.0,"offsetTable":{}}'), 'g', 'broker-a')).toEqual([]);
  });

  it('refuses malformed bodies with a ProtocolError and broker refusals with a BrokerError naming code and remark', () => {
    expect(() => parseConsumeStats(answer('{"offsetTable":{"T":{"brokerOffset":1}}}'), 'g', 'b')).toThrowError(
      expect.objectContaining({ name: 'ProtocolError' }),
    );
    expect(() =>
      parseConsumeStats(
        answer('{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{"brokerOffset":"x","consumerOffset":0}}}'),
        'g',
        'b',
      ),
    ).toThrow(/brokerOffset is not a long/);
    expect(() =>
      parseConsumeStats(
        answer(
          '{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{"brokerOffset":18014398509481984,"consumerOffset":0}}}',
        ),
        'g',
        'b',
      ),
    ).toThrowError(expect.objectContaining({ name: 'UnsafeLongError' }));
    expect(() => parseConsumeStats(answer('', 0), 'g', 'b')).toThrowError(
      expect.objectContaining({ name: 'ProtocolError' }),
    );
    expect(() => parseConsumeStats(answer('', 1, 'consume queue error'), 'g', 'broker-a')).toThrowError(
      expect.objectContaining({
        name: 'BrokerError',
        responseCode: 1,
        brokerName: 'broker-a',
        message: expect.stringContaining('(consume queue error)'),
      }),
    );
  });
});
