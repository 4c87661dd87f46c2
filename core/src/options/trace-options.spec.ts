import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration.error';
import { resolveProducerOptions } from '../producer/producer-options';
import { resolveTraceOptions } from './trace-options';
import { traceGroupName } from '../trace/message-trace';

describe('message trace options', () => {
  it('off by default; on: RMQ_SYS_TRACE_TOPIC, 10 contexts per flush and 2048 queued, as Java', () => {
    expect(resolveProducerOptions({ group: 'p' }).trace).toBeUndefined();
    expect(resolveProducerOptions({ group: 'p', enableMsgTrace: true }).trace).toEqual({
      traceTopic: 'RMQ_SYS_TRACE_TOPIC',
      batchNum: 10,
      queueSize: 2048,
    });
    expect(
      resolveTraceOptions('app', {
        enableMsgTrace: true,
        customizedTraceTopic: 'MY_TRACE',
        traceMsgBatchNum: 20,
        traceQueueSize: 1,
      }),
    ).toEqual({ traceTopic: 'MY_TRACE', batchNum: 20, queueSize: 1 });
  });

  it('refuses bad values with one ConfigurationError naming each option', () => {
    let error: unknown;
    try {
      resolveProducerOptions({
        group: 'p',
        enableMsgTrace: 'yes' as unknown as boolean,
        customizedTraceTopic: 'bad topic',
        traceMsgBatchNum: 21,
        traceQueueSize: 0,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).issues.map((i) => i.option)).toEqual([
      'enableMsgTrace',
      'customizedTraceTopic',
      'traceMsgBatchNum',
      'traceQueueSize',
    ]);
  });

  it('names the trace producer as Java does, within the 120 characters of a group', () => {
    expect(traceGroupName('orders', 'PRODUCE', 1)).toBe('_INNER_TRACE_PRODUCER-orders-PRODUCE-1');
    const long = traceGroupName('g'.repeat(120), 'CONSUME', 12);
    expect(long).toHaveLength(120);
    expect(long.endsWith('-CONSUME-12')).toBe(true);
  });
});
