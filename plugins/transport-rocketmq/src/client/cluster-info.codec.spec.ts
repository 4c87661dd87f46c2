import { describe, expect, it } from 'vitest';
import { remotingCommand } from '../protocol/remoting-command';
import { parseClusterInfo } from './cluster-info.codec';

const answer = (body: string, code = 0) => remotingCommand({ code, opaque: 1, flag: 1, body: Buffer.from(body) });

describe('cluster info codec', () => {
  it('reads plain fastjson with bare numeric broker ids, sorted by broker name', () => {
    const body =
      '{"brokerAddrTable":{"broker-b":{"brokerAddrs":{0:"10.0.0.2:10911",1:"10.0.0.3:10911"},"brokerName":"broker-b","cluster":"C","enableActingMaster":false},' +
      '"broker-a":{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"C"}},"clusterAddrTable":{"C":["broker-a","broker-b"]}}';
    expect(parseClusterInfo(answer(body))).toEqual([
      { cluster: 'C', brokerName: 'broker-a', brokerAddrs: new Map([[0, '10.0.0.1:10911']]), zoneName: undefined },
      {
        cluster: 'C',
        brokerName: 'broker-b',
        brokerAddrs: new Map([
          [0, '10.0.0.2:10911'],
          [1, '10.0.0.3:10911'],
        ]),
        zoneName: undefined,
      },
    ]);
  });

  it('reads quoted ids too, an empty body as no broker, and refuses malformed entries', () => {
    expect(
      parseClusterInfo(
        answer('{"brokerAddrTable":{"b":{"brokerAddrs":{"0":"h:1"},"brokerName":"b"}}}'),
      )[0]!.brokerAddrs.get(0),
    ).toBe('h:1');
    expect(parseClusterInfo(remotingCommand({ code: 0, opaque: 1, flag: 1 }))).toEqual([]);
    expect(() =>
      parseClusterInfo(answer('{"brokerAddrTable":{"b":{"brokerAddrs":{"x":"h:1"},"brokerName":"b"}}}')),
    ).toThrow(/non-numeric broker id/);
    expect(() => parseClusterInfo(answer('', 1))).toThrowError(
      expect.objectContaining({ name: 'BrokerError', responseCode: 1 }),
    );
  });
});
