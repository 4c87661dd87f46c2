import { describe, expect, it, vi } from 'vitest';
import { parseTime } from './parse-values';
import { runCli } from './run-cli';
import { renderTable } from './table';

/** Runs the CLI in-process, capturing what it writes. */
async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  try {
    const code = await runCli(args, {
      signal: new AbortController().signal,
      env,
      stderr: (t) => {
        err += t;
      },
    });
    return { code, out, err };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

describe('mqkit argument handling', () => {
  it('--help exits 0 and lists every command', async () => {
    const { code, out } = await cli(['--help']);
    expect(code).toBe(0);
    for (const command of ['lag', 'topics', 'topic', 'send', 'tail', 'reset', 'top'])
      expect(out).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    expect((await cli(['tail', '--help'])).code).toBe(0);
  });

  it('exits 2 on an unknown option (one beginning with --no- too), a missing required option, a bad value and an unknown command', async () => {
    const env = { MQKIT_NAMESRV: '127.0.0.1:9876' };
    const cases: [string[], RegExp][] = [
      [['lag', '--group', 'g', '--frobnicate'], /unknown option '--frobnicate'/],
      [['lag', '--group', 'g', '--no-color'], /unknown option '--no-color'/],
      [['topics', '--no-all'], /unknown option '--no-all'/],
      [['lag'], /required option '--group <group>' not specified/],
      [['topic', 'create', 'T', '--queues', 'many'], /--queues "many" is not an integer in \[1, 1024\]/],
      [['topic', 'create', 'T', '--queues', '0'], /--queues "0" is not an integer/],
      [['reset', '--group', 'g', '--to', 'yesterday'], /--to "yesterday" is not a time/],
      [['tail', 'T', '--tags', 'A', '--sql', "a = 'b'"], /cannot be used with option '--sql/],
      [['send', 'T', '--body', 'x', '--property', 'novalue'], /--property "novalue" is not name=value/],
      [['frobnicate'], /unknown command 'frobnicate'/],
    ];
    for (const [args, message] of cases) {
      const { code, err } = await cli(args, env);
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(err, args.join(' ')).toMatch(message);
    }
  });

  it('exits 2 without a name server, and when the name server does not answer', async () => {
    const none = await cli(['topics']);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/no name server: give --namesrv host:port .* or set MQKIT_NAMESRV/);
    // Port 1 on loopback: nothing listens there.
    const unreachable = await cli(['topics', '--namesrv', '127.0.0.1:1']);
    expect(unreachable.code).toBe(2);
    expect(unreachable.err).toMatch(/cannot reach the name server 127\.0\.0\.1:1/);
  }, 30_000);
});

describe('values', () => {
  it('parses times as epoch ms or ISO-8601 only', () => {
    expect(parseTime('1764583200000')).toBe(1_764_583_200_000);
    expect(parseTime('2026-12-01T10:00:00Z')).toBe(Date.UTC(2026, 11, 1, 10));
    expect(parseTime('2026-12-01T10:00:00.250+01:00')).toBe(Date.UTC(2026, 11, 1, 9, 0, 0, 250));
    expect(() => parseTime('Dec 1 2026')).toThrow(/not a time/);
    expect(() => parseTime('2026-13-45')).toThrow(/not a time/);
  });

  it('renders tables with numbers right-aligned', () => {
    expect(
      renderTable(
        ['topic', 'lag'],
        [
          ['orders', 5],
          ['payments-eu', 120],
        ],
      ),
    ).toBe(['topic        lag', 'orders         5', 'payments-eu  120'].join('\n'));
  });
});
