import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { collectorOf } from './java-collector';

const flags = (chosen: string): string =>
  ['SerialGC', 'G1GC', 'ParallelGC', 'ZGC']
    .map((gc) => `     bool Use${gc}    = ${gc === chosen ? 'true' : 'false'}     {product} {default}`)
    .concat([
      '     bool UseMaximumCompactionOnSystemGC           = true                                      {product} {default}',
    ])
    .join('\n');

describe('collectorOf', () => {
  it('names the collector whose Use flag is true, not another flag that ends in GC', () => {
    expect(collectorOf(flags('SerialGC'))).toBe('SerialGC');
    expect(collectorOf(flags('G1GC'))).toBe('G1GC');
    expect(collectorOf(flags('none'))).toBeUndefined();
  });

  // The JDK is a prerequisite of `npm test` (README), as for every RocketMQ test.
  it("reads a real JVM's -XX:+PrintFlagsFinal", () => {
    const out = execFileSync('java', ['-XX:+PrintFlagsFinal', '-version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    expect(collectorOf(out)).toMatch(/^(Serial|Parallel|G1|Z|Shenandoah|Epsilon)GC$/);
  });
});
