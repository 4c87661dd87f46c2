import { ConfigurationError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { AllocateMessageQueueByConfig } from './by-config.strategy';

describe('AllocateMessageQueueByConfig (CONFIG)', () => {
  const mine = [
    { topic: 'T', brokerName: 'broker-b', queueId: 3 },
    { topic: 'T', brokerName: 'broker-a', queueId: 1 },
  ];

  it('returns its configured list, in its order, whatever the input (no check, as in Java)', () => {
    const strategy = new AllocateMessageQueueByConfig(mine);
    expect(strategy.name).toBe('CONFIG');
    expect(strategy.allocate()).toEqual(mine);
    const input = { consumerGroup: 'g', currentCID: '', mqAll: [], cidAll: [] };
    expect((strategy.allocate as (i: typeof input) => unknown)(input)).toEqual(mine);
  });

  it('hands out copies: neither the caller nor a consumer can change the configuration later', () => {
    const list = [...mine];
    const strategy = new AllocateMessageQueueByConfig(list);
    list.pop();
    strategy.allocate().pop();
    expect(strategy.allocate()).toEqual(mine);
  });

  it('rejects a missing list or a malformed queue with ConfigurationError', () => {
    expect(() => new AllocateMessageQueueByConfig(undefined as never)).toThrow(ConfigurationError);
    expect(() => new AllocateMessageQueueByConfig([{ topic: 'T', brokerName: 'b', queueId: 1.5 }])).toThrow(
      /messageQueueList/,
    );
  });
});
