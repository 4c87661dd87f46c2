import { describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import { remotingCommand } from '../protocol/remoting-command';
import { consumerRunningInfoRequest, parseOwnedQueues } from './running-info-request.codec';

const answer = (body: string, code = 0, remark?: string) =>
  remotingCommand({ code, opaque: 1, flag: 1, remark, body: Buffer.from(body) });

describe('running info request codec', () => {
  it('asks the broker to relay GET_CONSUMER_RUNNING_INFO to one member, without jstack', () => {
    expect(consumerRunningInfoRequest('g', '10.0.0.8@app')).toEqual({
      code: RequestCode.GET_CONSUMER_RUNNING_INFO,
      extFields: { consumerGroup: 'g', clientId: '10.0.0.8@app', jstackEnable: false },
    });
  });

  it("reads the queues of a Java member's ConsumerRunningInfo (mqTable keyed by MessageQueue objects)", () => {
    const body =
      '{"jstack":"","mqPopTable":{},"mqTable":{{"brokerName":"broker-a","queueId":0,"topic":"%RETRY%g"}:{"cachedMsgCount":0,"commitOffset":0,"droped":false,"locked":false},' +
      '{"brokerName":"broker-a","queueId":1,"topic":"T"}:{"cachedMsgCount":2,"commitOffset":8,"droped":false,"locked":false}},' +
      '"properties":{"PROP_CONSUME_TYPE":"CONSUME_PASSIVELY"},"statusTable":{},"subscriptionSet":[],"userConsumerInfo":{}}';
    expect(parseOwnedQueues(answer(body), 'g', 'c', 'broker-a')).toEqual([
      { topic: '%RETRY%g', brokerName: 'broker-a', queueId: 0 },
      { topic: 'T', brokerName: 'broker-a', queueId: 1 },
    ]);
    expect(parseOwnedQueues(answer('{"mqTable":{},"properties":{}}'), 'g', 'c', 'b')).toEqual([]);
  });

  it("a member the broker does not know is the broker's SYSTEM_ERROR, a BrokerError with its remark", () => {
    expect(() => parseOwnedQueues(answer('', 1, 'The Consumer <g> <c> not online'), 'g', 'c', 'broker-a')).toThrowError(
      expect.objectContaining({
        name: 'BrokerError',
        responseCode: 1,
        message: expect.stringContaining('The Consumer <g> <c> not online'),
      }),
    );
    expect(() => parseOwnedQueues(answer('{"mqTable":{"T":{}}}'), 'g', 'c', 'b')).toThrowError(
      expect.objectContaining({ name: 'ProtocolError' }),
    );
  });
});
