import { createHmac } from 'node:crypto';
import { ConfigurationError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { aclSignature, aclSigningContent, checkCredentials, signExtFields } from './acl-signer';

describe('ACL signing (AclClientRPCHook)', () => {
  it('matches AclSignerTest: HmacSHA1("RocketMQ", "12345678") in base64', () => {
    expect(aclSignature(Buffer.from('RocketMQ'), '12345678')).toBe('IUc8rrO/0gDch8CjObLQsW2rsiA=');
  });

  it('signs values in Java TreeMap key order (uppercase, underscore, lowercase), then the body', () => {
    const fields = { topic: 'T', b: '2', B: '1', _x: '3', a: '4' };
    // Keys by UTF-16 code unit: B(66) _(95) a(97) b(98) topic; values concatenated, keys not signed.
    expect(aclSigningContent(fields, Buffer.from('!')).toString()).toBe('1342T!');
  });

  it('adds AccessKey and Signature computed over every value and the body', () => {
    const signed = signExtFields({ consumerGroup: 'G', queueId: '0', topic: 'T' }, Buffer.from('body'), {
      accessKey: 'ak',
      secretKey: 'sk',
    });
    const expected = createHmac('sha1', 'sk').update('akG0Tbody').digest('base64');
    expect(signed).toEqual({ consumerGroup: 'G', queueId: '0', topic: 'T', AccessKey: 'ak', Signature: expected });
  });

  it('leaves unsigned fields on the wire but out of the signed bytes, as a 4.x broker recomputes them', () => {
    const fields = { topic: 'T', key: 'k', _UNIQUE_KEY_QUERY: 'false' };
    const credentials = { accessKey: 'ak', secretKey: 'sk' };
    const signed = signExtFields(fields, Buffer.alloc(0), credentials, ['_UNIQUE_KEY_QUERY']);
    expect(signed._UNIQUE_KEY_QUERY).toBe('false');
    // PlainAccessValidator (4.9.7) signs every field but Signature and _UNIQUE_KEY_QUERY: AccessKey, key, topic.
    expect(signed.Signature).toBe(createHmac('sha1', 'sk').update('akkT').digest('base64'));
    expect(signed.Signature).not.toBe(signExtFields(fields, Buffer.alloc(0), credentials).Signature);
  });

  it('signs the SecurityToken too when present', () => {
    const signed = signExtFields({ a: '1' }, Buffer.alloc(0), {
      accessKey: 'ak',
      secretKey: 'sk',
      securityToken: 'tok',
    });
    // AccessKey, SecurityToken, a
    expect(signed.Signature).toBe(createHmac('sha1', 'sk').update('aktok1').digest('base64'));
  });

  // Produced by RocketMQ 5.3.3's own AclClientRPCHook (rocketmq-client jar) on the same requests.
  it('reproduces signatures computed by RocketMQ 5.3.3 itself', () => {
    const one = signExtFields(
      { topic: 'TopicTest', consumerGroup: 'GID_ü', queueId: '3', B: 'upper', _x: 'under' },
      Buffer.from('hello body'),
      { accessKey: 'myAccessKey', secretKey: 'mySecretKey' },
    );
    expect(one.Signature).toBe('tuw2YmLxzZ2pjdNjwBtrQFO4Tis=');
    const two = signExtFields({ a: '1' }, Buffer.alloc(0), {
      accessKey: 'ak',
      secretKey: 'sk',
      securityToken: 'token-1',
    });
    expect(two.Signature).toBe('uzSIWkkq1FZAek1gG1+7heK4wLI=');
  });

  it('replaces a stale Signature instead of signing it', () => {
    const signed = signExtFields({ a: '1', Signature: 'old' }, Buffer.alloc(0), { accessKey: 'ak', secretKey: 'sk' });
    expect(signed.Signature).toBe(createHmac('sha1', 'sk').update('ak1').digest('base64'));
  });

  it('refuses blank keys with a ConfigurationError that hides the secret', () => {
    expect(() => checkCredentials({ accessKey: ' ', secretKey: 'x' }, 'rocketmqTransport')).toThrow(ConfigurationError);
    let caught: unknown;
    try {
      checkCredentials({ accessKey: 'a', secretKey: '' }, 'rocketmqTransport');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    expect((caught as ConfigurationError).option).toBe('credentials.secretKey');
    expect(() => checkCredentials({ accessKey: 'a', secretKey: 'b' }, 'x')).not.toThrow();
  });
});
