import { createAdmin, createProducer, createPullConsumer, retryTopicOf, type Admin } from '@mqkit/core';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TransportFactory } from './connect';
import { parseTime } from './parse-values';
import { runCli } from './run-cli';
import { renderTable } from './table';

/** Runs the CLI in-process, capturing what it writes. */
async function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  transport?: TransportFactory,
): Promise<{ code: number; out: string; err: string }> {
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
      transport,
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

describe('mqkit on the embedded broker', () => {
  let broker: EmbeddedBroker;
  const open: Admin[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((a) => a.close()));
    broker?.close();
  });
  /** The CLI with every connection on `broker`, as the real one has them on the name server. */
  const embedded = (args: string[]) => cli(args, { MQKIT_NAMESRV: 'embedded' }, () => memoryTransport({ broker }));
  async function admin(): Promise<Admin> {
    const a = await createAdmin({ transport: memoryTransport({ broker }) });
    open.push(a);
    return a;
  }

  it('lag, reset and tail exit 2 naming an unknown group or topic; lag of a known group with no offsets says so', async () => {
    broker = new EmbeddedBroker();
    broker.createTopic({ topic: 'orders', queues: 2 });
    for (const args of [
      ['lag', '--group', 'nosuchgroup'],
      ['lag', '--group', 'nosuchgroup', '--json'],
    ]) {
      const lag = await embedded(args);
      expect({ args, code: lag.code, out: lag.out }).toEqual({ args, code: 2, out: '' });
      expect(lag.err).toMatch(/^mqkit: unknown consumer group nosuchgroup: no broker knows it/m);
    }
    const reset = await embedded(['reset', '--group', 'nosuchgroup', '--to', '0']);
    expect(reset.code).toBe(2);
    expect(reset.err).toMatch(/unknown consumer group nosuchgroup/);
    const tail = await embedded(['tail', 'nosuchtopic']);
    expect(tail.code).toBe(2);
    expect(tail.err).toMatch(/^mqkit: unknown topic nosuchtopic: the name server has no route for it/m);
    expect(tail.err).not.toMatch(/tailing/);

    // A group a member joined (so its %RETRY% topic exists) and that committed nothing is known: no error.
    const member = await createPullConsumer({ transport: memoryTransport({ broker }), group: 'billing' });
    await member.subscribe('orders');
    await member.close();
    expect((await (await admin()).topicStats(retryTopicOf('billing'))).length).toBe(1);
    const known = await embedded(['lag', '--group', 'billing']);
    expect(known.code, known.err).toBe(0);
    expect(known.out).toBe('group billing has no committed offset yet: no queue to report\n');
    expect(JSON.parse((await embedded(['lag', '--group', 'billing', '--json'])).out)).toEqual({
      group: 'billing',
      total: 0,
      queues: [],
    });
  });

  it("tail prints the sender's properties apart from RocketMQ's own, on its line and in its JSON", async () => {
    broker = new EmbeddedBroker();
    broker.createTopic({ topic: 'orders', queues: 1 });
    const producer = await createProducer({ transport: memoryTransport({ broker }), group: 'p' });
    const sent = await producer.send({
      topic: 'orders',
      body: 'hello',
      tags: 'A',
      keys: ['k1'],
      properties: { region: 'eu', note: 'two words' },
    });
    await producer.stop();
    const line = await embedded(['tail', 'orders', '--from-beginning', '--count', '1']);
    expect(line.code, line.err).toBe(0);
    expect(line.out).toContain(` ${sent.msgId} tags=A keys=k1 props={"region":"eu","note":"two words"} hello\n`);
    expect(line.out).not.toMatch(/UNIQ_KEY|WAIT|CLUSTER/);
    const json = await embedded(['tail', 'orders', '--from-beginning', '--count', '1', '--json']);
    const printed = JSON.parse(json.out) as { userProperties: object; properties: Record<string, string> };
    expect(printed.userProperties).toEqual({ region: 'eu', note: 'two words' });
    // Every stored property stays under `properties`, the system ones included.
    expect(printed.properties).toMatchObject({ region: 'eu', UNIQ_KEY: sent.msgId, TAGS: 'A', KEYS: 'k1' });
  });
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
