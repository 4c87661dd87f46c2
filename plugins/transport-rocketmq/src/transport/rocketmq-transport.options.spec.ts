import { ConfigurationError, FAST_PROFILE } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { rocketmqTransport } from './rocketmq.transport';
import {
  checkTransportOptions,
  resolveTransportOptions,
  type RocketMqTransportOptions,
} from './rocketmq-transport.options';

function issuesOf(options: unknown): Array<{ option: string; value: unknown }> {
  try {
    checkTransportOptions(options as RocketMqTransportOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).issues.map((i) => ({ option: i.option, value: i.value }));
  }
  return [];
}

describe('rocketmqTransport options', () => {
  it('accepts one name server, RocketMQ\'s "a;b" list, or an array', () => {
    for (const nameServer of ['127.0.0.1:9876', '10.0.0.1:9876; 10.0.0.2:9876', ['a.example:9876', '[::1]:9876']])
      expect(issuesOf({ nameServer })).toEqual([]);
    expect(resolveTransportOptions({ nameServer: ['a:1;b:2', 'c:3'] }, FAST_PROFILE).nameServers).toEqual([
      'a:1',
      'b:2',
      'c:3',
    ]);
  });

  it('lists every bad option at once, with the value given', () => {
    const issues = issuesOf({
      nameServer: 'nohost;10.0.0.1:99999',
      credentials: { accessKey: ' ', secretKey: 'x' },
      tls: 'yes',
      requestTimeoutMs: 0,
      routeRefreshMs: 1.5,
      language: 'NODE',
    });
    expect(issues).toEqual([
      { option: 'nameServer', value: 'nohost' },
      { option: 'nameServer', value: '10.0.0.1:99999' },
      { option: 'credentials.accessKey', value: ' ' },
      { option: 'tls', value: 'yes' },
      { option: 'requestTimeoutMs', value: 0 },
      { option: 'routeRefreshMs', value: 1.5 },
      { option: 'language', value: 'NODE' },
    ]);
  });

  it('refuses a missing or empty name server list and non-object options', () => {
    expect(issuesOf({})).toEqual([{ option: 'nameServer', value: undefined }]);
    expect(issuesOf({ nameServer: ' ; ' })).toEqual([{ option: 'nameServer', value: ' ; ' }]);
    expect(issuesOf({ nameServer: [1] })).toEqual([{ option: 'nameServer', value: [1] }]);
    expect(issuesOf(null)).toEqual([{ option: 'options', value: null }]);
  });

  it('never echoes the secret key in the error', () => {
    const error = (() => {
      try {
        rocketmqTransport({ nameServer: 'h:1', credentials: { accessKey: 'ak', secretKey: '' } });
      } catch (e) {
        return e as ConfigurationError;
      }
      return undefined;
    })();
    expect(error?.issues[0]).toMatchObject({ option: 'credentials.secretKey', value: '(hidden)' });
  });

  it('takes intervals from the profile unless given, and a plugin value is made only from valid options', () => {
    const resolved = resolveTransportOptions({ nameServer: 'h:1' }, FAST_PROFILE);
    expect(resolved).toMatchObject({
      requestTimeoutMs: FAST_PROFILE.requestTimeoutMs,
      routeRefreshMs: FAST_PROFILE.routeRefreshMs,
      language: 'JAVA',
      tls: undefined,
    });
    expect(
      resolveTransportOptions({ nameServer: 'h:1', routeRefreshMs: 7, requestTimeoutMs: 9, tls: true }, FAST_PROFILE),
    ).toMatchObject({ routeRefreshMs: 7, requestTimeoutMs: 9, tls: true });
    expect(rocketmqTransport({ nameServer: 'h:1' })).toMatchObject({ kind: 'transport', name: 'rocketmq' });
    expect(() => rocketmqTransport({ nameServer: '' })).toThrow(ConfigurationError);
  });
});
