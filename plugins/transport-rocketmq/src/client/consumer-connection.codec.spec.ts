import { describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import { remotingCommand } from '../protocol/remoting-command';
import { consumerConnectionRequest, parseConsumerConnection } from './consumer-connection.codec';

const answer = (body: string, code = 0, remark?: string) =>
  remotingCommand({ code, opaque: 1, flag: 1, remark, body: Buffer.from(body) });

/** A ConsumerConnection as a 5.3.3 broker writes it for a Java member and an mqkit member of one group. */
const BODY =
  '{"connectionSet":[{"clientAddr":"127.0.0.1:53422","clientId":"10.0.0.7@12345#1","language":"JAVA","version":479},' +
  '{"clientAddr":"127.0.0.1:53430","clientId":"10.0.0.8@app","language":"NODE_JS","version":479}],' +
  '"consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",' +
  '"subscriptionTable":{"T":{"classFilterMode":false,"codeSet":[2598919,2598920],"expressionType":"TAG","subString":"TagA || TagB","subVersion":1718000000001,"tagsSet":["TagA","TagB"],"topic":"T"},' +
  '"%RETRY%g":{"classFilterMode":false,"codeSet":[],"expressionType":"TAG","subString":"*","subVersion":1718000000002,"tagsSet":[],"topic":"%RETRY%g"}}}';

describe('consumer connection codec', () => {
  it('asks for the group by consumerGroup', () => {
    expect(consumerConnectionRequest('g')).toEqual({
      code: RequestCode.GET_CONSUMER_CONNECTION_LIST,
      extFields: { consumerGroup: 'g' },
    });
  });

  it('reads the members, the group registration and every subscription (sorted by topic)', () => {
    expect(parseConsumerConnection(answer(BODY), 'g', 'broker-a')).toEqual({
      connections: [
        { clientId: '10.0.0.7@12345#1', clientAddr: '127.0.0.1:53422', language: 'JAVA', version: 479 },
        { clientId: '10.0.0.8@app', clientAddr: '127.0.0.1:53430', language: 'NODE_JS', version: 479 },
      ],
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      subscriptions: [
        {
          topic: '%RETRY%g',
          expression: '*',
          expressionType: 'TAG',
          tags: new Set(),
          codes: new Set(),
          subVersion: 1718000000002,
        },
        {
          topic: 'T',
          expression: 'TagA || TagB',
          expressionType: 'TAG',
          tags: new Set(['TagA', 'TagB']),
          codes: new Set([2598919, 2598920]),
          subVersion: 1718000000001,
        },
      ],
    });
  });

  it('reads a language the broker does not know (null, left out) as OTHER and deprecated ConsumeFromWhere names as their successors', () => {
    const body = BODY.replace('"language":"JAVA",', '').replace('CONSUME_FROM_FIRST_OFFSET', 'CONSUME_FROM_MIN_OFFSET');
    const read = parseConsumerConnection(answer(body), 'g', 'broker-a')!;
    expect(read.connections[0]!.language).toBe('OTHER');
    expect(read.consumeFromWhere).toBe('CONSUME_FROM_FIRST_OFFSET');
  });

  it('CONSUMER_NOT_ONLINE is no member; other refusals are BrokerErrors; unknown enum names are ProtocolErrors', () => {
    expect(
      parseConsumerConnection(answer('', 206, 'the consumer group[g] not online'), 'g', 'broker-a'),
    ).toBeUndefined();
    expect(() => parseConsumerConnection(answer('', 16, 'no permission'), 'g', 'broker-a')).toThrowError(
      expect.objectContaining({ name: 'BrokerError', responseCode: 16, kind: 'no-permission' }),
    );
    expect(() => parseConsumerConnection(answer(BODY.replace('"CLUSTERING"', '"SHARDING"')), 'g', 'b')).toThrow(
      /messageModel = "SHARDING" is not one of/,
    );
    expect(() =>
      parseConsumerConnection(answer(BODY.replace('"version":479', '"version":"479"')), 'g', 'b'),
    ).toThrowError(expect.objectContaining({ name: 'ProtocolError' }));
  });
});
