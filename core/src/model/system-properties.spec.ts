import { describe, expect, it } from 'vitest';
import { MessageConst } from './constants';
import { isSystemProperty, userProperties } from './system-properties';

describe('system properties', () => {
  it("keeps what the sender put and drops RocketMQ's and mqkit's own names", () => {
    const stored = {
      region: 'eu',
      [MessageConst.UNIQ_KEY]: '7F000001',
      [MessageConst.KEYS]: 'k1 k2',
      [MessageConst.TAGS]: 'A',
      [MessageConst.WAIT]: 'true',
      [MessageConst.MSG_REGION]: 'DefaultRegion',
      [MessageConst.TRACE_ON]: 'true',
      [MessageConst.CLUSTER]: 'DefaultCluster',
      [MessageConst.SHARDING_KEY]: 'order-1',
      '__RMQ.TRANSIENT.TOPIC_SYS_FLAG': '0',
      amount: '30',
      // A name RocketMQ does not reserve, upper case or not, is the sender's.
      TRACE_ID: 'abc',
    };
    expect(userProperties(stored)).toEqual({ region: 'eu', amount: '30', TRACE_ID: 'abc' });
    for (const name of ['REAL_TOPIC', 'RETRY_TOPIC', 'ORIGIN_MESSAGE_ID', 'DLQ_ORIGIN_TOPIC', 'POP_CK', '__CRC32#'])
      expect(isSystemProperty(name), name).toBe(true);
    expect(isSystemProperty('region')).toBe(false);
  });
});
