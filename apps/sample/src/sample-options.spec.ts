import { describe, expect, it } from 'vitest';
import { UsageError, parseSampleArgs } from './sample-options';

describe('sample flags', () => {
  it('defaults', () => {
    expect(parseSampleArgs([])).toEqual({
      messages: 20000,
      instances: 3,
      size: 256,
      rate: 4000,
      namesrv: undefined,
      progress: true,
    });
  });

  it('parses every flag', () => {
    expect(
      parseSampleArgs([
        '--messages',
        '10',
        '--instances',
        '4',
        '--size',
        '64',
        '--rate',
        '5',
        '--namesrv',
        '127.0.0.1:9876',
        '--no-progress',
      ]),
    ).toEqual({
      messages: 10,
      instances: 4,
      size: 64,
      rate: 5,
      namesrv: '127.0.0.1:9876',
      progress: false,
    });
  });

  it('rejects bad values with the usage line', () => {
    expect(() => parseSampleArgs(['--messages', '0'])).toThrow(UsageError);
    expect(() => parseSampleArgs(['--instances', '1'])).toThrow(/--instances must be an integer in \[2, 64\]/);
    expect(() => parseSampleArgs(['--bogus'])).toThrow();
  });
});
