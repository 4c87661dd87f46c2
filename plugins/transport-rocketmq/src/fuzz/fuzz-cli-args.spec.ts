import { ConfigurationError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { parseFuzzArgs } from './fuzz-cli-args';

describe('fuzz CLI arguments', () => {
  it('reads --count and --seed in both spellings, with defaults for the rest', () => {
    expect(parseFuzzArgs(['--count', '1000000', '--seed=7'], 99)).toEqual({
      count: 1_000_000,
      seed: 7,
      start: 0,
      targets: ['frame', 'record', 'batch', 'fastjson'],
      workers: 1,
      watchdogMs: 10_000,
    });
    expect(parseFuzzArgs([], 99)).toMatchObject({ count: 100_000, seed: 99 });
    expect(parseFuzzArgs(['--target', 'record,batch', '--workers', '2'], 1)).toMatchObject({
      targets: ['record', 'batch'],
      workers: 2,
    });
  });

  it.each([
    [['--count', 'x']],
    [['--count', '0']],
    [['--seed', '-1']],
    [['--target', 'nope']],
    [['--speed', '3']],
    [['count']],
  ])('refuses %j with a ConfigurationError', (argv) => {
    expect(() => parseFuzzArgs(argv, 1)).toThrow(ConfigurationError);
  });
});
