import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseExposition } from './exposition';

describe('parseExposition', () => {
  it("reads what prom-client serves: families' types, labels with escapes, histogram buckets with +Inf", async () => {
    const registry = new Registry();
    new Counter({ name: 'c_total', help: 'c', labelNames: ['topic'], registers: [registry] }).inc(
      { topic: 'a "quoted"\\ topic\nnext' },
      3,
    );
    new Gauge({ name: 'g', help: 'g', registers: [registry] }).set(-1.5);
    new Histogram({ name: 'h_seconds', help: 'h', buckets: [0.1, 1], registers: [registry] }).observe(0.5);
    const { samples, types } = parseExposition(await registry.metrics());
    expect(Object.fromEntries(types)).toEqual({ c_total: 'counter', g: 'gauge', h_seconds: 'histogram' });
    expect(samples).toEqual([
      { name: 'c_total', labels: { topic: 'a "quoted"\\ topic\nnext' }, value: 3 },
      { name: 'g', labels: {}, value: -1.5 },
      { name: 'h_seconds_bucket', labels: { le: '0.1' }, value: 0 },
      { name: 'h_seconds_bucket', labels: { le: '1' }, value: 1 },
      { name: 'h_seconds_bucket', labels: { le: '+Inf' }, value: 1 },
      { name: 'h_seconds_sum', labels: {}, value: 0.5 },
      { name: 'h_seconds_count', labels: {}, value: 1 },
    ]);
  });

  it('reads timestamps, special values and empty label sets', () => {
    const { samples } = parseExposition('a{} +Inf 1700000000000\nb NaN\nc{x="1",} -Inf\n');
    expect(samples.map((s) => [s.name, s.labels, s.value])).toEqual([
      ['a', {}, Infinity],
      ['b', {}, NaN],
      ['c', { x: '1' }, -Infinity],
    ]);
  });

  it('throws on a line it cannot read rather than skipping a sample', () => {
    expect(() => parseExposition('9bad 1')).toThrow(/line 1: no metric name/);
    expect(() => parseExposition('ok 1\nm{x="1"} one')).toThrow(/line 2: bad value one/);
    expect(() => parseExposition('m{x="1} 1')).toThrow(/unterminated label value/);
    expect(() => parseExposition('m{x=1} 1')).toThrow(/bad label/);
    expect(() => parseExposition('m 1 2 3')).toThrow(/at most a timestamp/);
  });
});
