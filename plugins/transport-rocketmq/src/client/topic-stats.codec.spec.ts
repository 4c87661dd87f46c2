import { describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import { remotingCommand } from '../protocol/remoting-command';
import { parseTopicStats, topicStatsRequest } from './topic-stats.codec';

const answer = (body: string, code = 0, remark?: string) =>
  remotingCommand({ code, opaque: 1, flag: 1, remark, body: Buffer.from(body) });

describe('topic stats codec', () => {
  it('asks one broker for one topic', () => {
    expect(topicStatsRequest('T')).toEqual({ code: RequestCode.GET_TOPIC_STATS_INFO, extFields: { topic: 'T' } });
  });

  it('reads TopicStatsTable: a TopicOffset per queue, keyed by MessageQueue objects', () => {
    const body =
      '{"offsetTable":{{"brokerName":"broker-b","queueId":0,"topic":"T"}:{"lastUpdateTimestamp":1718000000500,"maxOffset":7,"minOffset":0},' +
      '{"brokerName":"broker-b","queueId":1,"topic":"T"}:{"lastUpdateTimestamp":0,"maxOffset":0,"minOffset":0}},"topicPutTps":0.0}';
    expect(parseTopicStats(answer(body), 'T', 'broker-b')).toEqual([
      {
        mq: { topic: 'T', brokerName: 'broker-b', queueId: 0 },
        minOffset: 0,
        maxOffset: 7,
        lastUpdateTimestamp: 1718000000500,
      },
      { mq: { topic: 'T', brokerName: 'broker-b', queueId: 1 }, minOffset: 0, maxOffset: 0, lastUpdateTimestamp: 0 },
    ]);
  });

  it('a broker without the topic is a topic-not-found BrokerError; a missing field a ProtocolError', () => {
    expect(() => parseTopicStats(answer('', 17, 'topic[T] not exist'), 'T', 'broker-b')).toThrowError(
      expect.objectContaining({ name: 'BrokerError', responseCode: 17, kind: 'topic-not-found' }),
    );
    expect(() =>
      parseTopicStats(
        answer('{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{"maxOffset":1,"minOffset":0}}}'),
        'T',
        'b',
      ),
    ).toThrow(/lastUpdateTimestamp is not a long/);
  });
});
