import 'reflect-metadata';
import { container } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import { Consumer } from '../decorators/consumer.decorator';
import { ConfigurationError } from '../errors/configuration.error';
import type { ConsumerOptions } from '../options/consumer-options';
import { buildDefinitions } from './build-definitions';
import { exploreConsumers } from './explore-consumers';

function definitionsOf(...classes: (new () => object)[]) {
  return buildDefinitions(exploreConsumers(classes, container.createChildContainer()));
}

function rejection(options: Partial<ConsumerOptions>): ConfigurationError {
  class Bad {
    handle(): void {}
  }
  Consumer({ group: 'g', topic: 'T', ...options } as ConsumerOptions)(Bad);
  try {
    definitionsOf(Bad);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error(`options ${JSON.stringify(options)} were accepted`);
}

describe('option validation (Java checkConfig ranges)', () => {
  const cases: [Partial<ConsumerOptions>, string, RegExp][] = [
    [{ consumeThreadMin: 0 }, 'consumeThreadMin', /\[1, 1000\]/],
    [{ consumeThreadMax: 1001 }, 'consumeThreadMax', /\[1, 1000\]/],
    [{ consumeThreadMin: 30, consumeThreadMax: 20 }, 'consumeThreadMin', /at most consumeThreadMax \(20\)/],
    [{ consumeConcurrentlyMaxSpan: 0 }, 'consumeConcurrentlyMaxSpan', /\[1, 65535\]/],
    [{ pullThresholdForQueue: 65536 }, 'pullThresholdForQueue', /\[1, 65535\]/],
    [{ pullThresholdSizeForQueue: 0 }, 'pullThresholdSizeForQueue', /\[1, 1024\]/],
    [{ pullThresholdForTopic: 0 }, 'pullThresholdForTopic', /-1 or an integer in \[1, 6553500\]/],
    [{ pullThresholdSizeForTopic: 102401 }, 'pullThresholdSizeForTopic', /-1 or an integer in \[1, 102400\]/],
    [{ pullInterval: -1 }, 'pullInterval', /\[0, 65535\]/],
    [{ consumeMessageBatchMaxSize: 1025 }, 'consumeMessageBatchMaxSize', /\[1, 1024\]/],
    [{ pullBatchSize: 0 }, 'pullBatchSize', /\[1, 1024\]/],
    [{ pullBatchSize: 2.5 }, 'pullBatchSize', /an integer/],
    [{ maxReconsumeTimes: -2 }, 'maxReconsumeTimes', /-1 or an integer/],
    [{ suspendCurrentQueueTimeMillis: 5 }, 'suspendCurrentQueueTimeMillis', /\[10, 30000\]/],
    [{ consumeTimeout: 0 }, 'consumeTimeout', /\(0, 1440\]/],
    [{ messageModel: 'CLUSTER' as never }, 'messageModel', /one of CLUSTERING, BROADCASTING/],
    [{ consumeMode: 'ORDERED' as never }, 'consumeMode', /one of CONCURRENTLY, ORDERLY/],
    [{ consumeFromWhere: 'FIRST' as never }, 'consumeFromWhere', /CONSUME_FROM_FIRST_OFFSET/],
    [{ consumeTimestamp: '2026-11-29' }, 'consumeTimestamp', /yyyyMMddHHmmss/],
    [{ consumeTimestamp: '20261332000000' }, 'consumeTimestamp', /yyyyMMddHHmmss/],
    [
      { consumeMode: 'ORDERLY', messageModel: 'BROADCASTING' },
      'consumeMode',
      /CONCURRENTLY when messageModel is BROADCASTING/,
    ],
    [
      { exclusiveHandoff: true, messageModel: 'BROADCASTING' },
      'exclusiveHandoff',
      /false when messageModel is BROADCASTING/,
    ],
    [{ group: '' }, 'group', /non-blank/],
    [{ group: '   ' }, 'group', /non-blank/],
    [{ group: 'a b' }, 'group', /\[%\|a-zA-Z0-9_-\]/],
    [{ group: 'x'.repeat(121) }, 'group', /at most 120/],
    [{ group: 'DEFAULT_CONSUMER' }, 'group', /reserved/],
    [{ topic: 'orders.v1' }, 'topic', /\[%\|a-zA-Z0-9_-\]/],
    [{ topic: 'x'.repeat(128) }, 'topic', /at most 127/],
    [{ batch: 'yes' as never }, 'batch', /true or false/],
    [{ codec: {} as never }, 'codec', /decode/],
    [{ strategy: 42 as never }, 'strategy', /registered strategy name/],
    [{ consumeThreadMaxx: 3 } as never, 'consumeThreadMaxx', /a known @Consumer option/],
    [{ sql: "a = 'x'", tags: 'A' }, 'sql', /not both/],
    [{ sql: 42 as never }, 'sql', /an SQL92 expression/],
    [{ sql: "a != 'x'" }, 'sql', /column 3/],
    [{ sql: 'a = 1 b = 2' }, 'sql', /would silently ignore the rest/],
  ];
  it.each(cases)('%j is rejected naming %s', (options, option, allowed) => {
    const error = rejection(options);
    expect(error.option).toBe(option);
    expect(error.source).toBe('Bad');
    expect(error.allowed).toMatch(allowed);
    expect(error.message).toContain(`Bad: option ${option} = `);
    expect(error.message).toMatch(allowed);
  });

  it('reports every invalid option at once', () => {
    const error = rejection({ consumeThreadMin: 0, pullBatchSize: 0, consumeTimeout: -1 });
    expect(error.issues.map((i) => i.option).sort()).toEqual(['consumeThreadMin', 'consumeTimeout', 'pullBatchSize']);
    expect(error.message).toMatch(/^3 invalid options:/);
  });
});

describe('subscriptions', () => {
  it('sql makes an SQL92 subscription with no tags; tags a TAG one', () => {
    class Sql {
      handle(): void {}
    }
    Consumer({ group: 'g', topic: 'T', sql: "region = 'eu'" })(Sql);
    class Tags {
      handle(): void {}
    }
    Consumer({ group: 'h', topic: 'T', tags: 'A || B' })(Tags);
    const [sql, tags] = definitionsOf(Sql, Tags).map((d) => d.subscriptions[0]!.subscription);
    expect(sql).toMatchObject({ expressionType: 'SQL92', expression: "region = 'eu'" });
    expect([...sql!.tags, ...sql!.codes]).toEqual([]);
    expect(tags).toMatchObject({ expressionType: 'TAG', expression: 'A || B' });
  });
});

describe('merging declarations by group', () => {
  it('merges same-group declarations into one consumer with several subscriptions', () => {
    class Multi {
      @Consumer({ group: 'audit', topic: 'orders', batch: true, consumeMessageBatchMaxSize: 8 })
      orders(): void {}
      @Consumer({ group: 'audit', topic: 'payments', tags: 'paid || refunded' })
      payments(): void {}
      @Consumer({ group: 'other', topic: 'orders' })
      other(): void {}
    }
    const defs = definitionsOf(Multi);
    expect(defs.map((d) => d.group)).toEqual(['audit', 'other']);
    const audit = defs[0]!;
    expect(audit.options.consumeMessageBatchMaxSize).toBe(8);
    expect(audit.subscriptions.map((s) => [s.topic, s.batch, [...s.subscription.tags]])).toEqual([
      ['orders', true, []],
      ['payments', false, ['paid', 'refunded']],
    ]);
  });

  it('rejects conflicting group options and a topic subscribed twice by one group', () => {
    class Conflict {
      @Consumer({ group: 'g', topic: 'a', consumeThreadMax: 10 })
      a(): void {}
      @Consumer({ group: 'g', topic: 'b', consumeThreadMax: 20 })
      b(): void {}
      @Consumer({ group: 'g', topic: 'a' })
      again(): void {}
    }
    try {
      definitionsOf(Conflict);
      throw new Error('accepted');
    } catch (error) {
      const issues = (error as ConfigurationError).issues;
      expect(issues.map((i) => i.option).sort()).toEqual(['consumeThreadMax', 'topic']);
      expect(issues.find((i) => i.option === 'consumeThreadMax')!.allowed).toMatch(
        /same value in every declaration of group g/,
      );
    }
  });

  it('applies DefaultMQPushConsumer defaults', () => {
    class Defaults {
      handle(): void {}
    }
    Consumer({ group: 'g', topic: 'T' })(Defaults);
    const o = definitionsOf(Defaults)[0]!.options;
    expect(o).toMatchObject({
      messageModel: 'CLUSTERING',
      consumeMode: 'CONCURRENTLY',
      consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
      consumeThreadMin: 20,
      consumeThreadMax: 20,
      pullThresholdForQueue: 1000,
      pullThresholdSizeForQueue: 100,
      consumeConcurrentlyMaxSpan: 2000,
      pullBatchSize: 32,
      consumeMessageBatchMaxSize: 1,
      maxReconsumeTimes: -1,
      consumeTimeout: 15,
      strategy: 'AVG',
    });
    expect(o.consumeTimestamp).toMatch(/^\d{14}$/);
  });

  it('a class without @Consumer is a configuration error', () => {
    class Plain {}
    expect(() => definitionsOf(Plain)).toThrow(/classes with @Consumer/);
  });
});
