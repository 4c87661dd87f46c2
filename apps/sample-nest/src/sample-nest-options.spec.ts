import { describe, expect, it } from 'vitest';
import { UsageError, parseSampleNestArgs } from './sample-nest-options';

describe('parseSampleNestArgs', () => {
  it('has defaults and reads every flag', () => {
    expect(parseSampleNestArgs([])).toEqual({
      messages: 2000,
      workMs: 0,
      serve: false,
      progress: true,
      namesrv: undefined,
    });
    expect(
      parseSampleNestArgs([
        '--messages',
        '10',
        '--work-ms',
        '5',
        '--serve',
        '--no-progress',
        '--namesrv',
        '127.0.0.1:9876',
      ]),
    ).toEqual({
      messages: 10,
      workMs: 5,
      serve: true,
      progress: false,
      namesrv: '127.0.0.1:9876',
    });
  });

  it.each([
    [['--messages', '0'], /--messages must be an integer in \[1, 1000000\] \(got 0\)/],
    [['--work-ms', '1.5'], /--work-ms must be an integer/],
    [['--instances', '3'], /Unknown option '--instances'/],
  ])('%j is a usage error naming the flag', (argv, message) => {
    expect(() => parseSampleNestArgs(argv)).toThrow(UsageError);
    expect(() => parseSampleNestArgs(argv)).toThrow(message);
    expect(() => parseSampleNestArgs(argv)).toThrow(/usage: npm run start:nest/);
  });
});
