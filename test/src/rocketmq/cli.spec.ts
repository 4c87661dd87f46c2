import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createAdmin, createProducer, createPullConsumer, retryTopicOf, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, useRocketMqHarness } from '../support/rocketmq-fixtures';

/** The installed bin, as a user runs it after `npm ci && npm run build`. */
const BIN = join(__dirname, '..', '..', '..', 'node_modules', '.bin', 'mqkit');

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
useRocketMqHarness((c, h) => {
  cluster = c;
  harness = h;
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the bin to its end with MQKIT_NAMESRV set to the test cluster. */
function mqkit(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, {
      env: { ...process.env, MQKIT_NAMESRV: cluster.namesrvAddr, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts the bin and hands back its output so far, to act while it runs (tail). */
function started(args: readonly string[]) {
  const child = spawn(BIN, args, {
    env: { ...process.env, MQKIT_NAMESRV: cluster.namesrvAddr },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, out, ended };
}

const json = <T>(run: Run): T => JSON.parse(run.stdout) as T;

describe('the mqkit CLI against a real cluster', () => {
  it('--help exits 0; an unknown option, a --no- option and an unreachable name server exit 2', async () => {
    expect(existsSync(BIN)).toBe(true);
    expect((await mqkit(['--help'])).code).toBe(0);
    const unknown = await mqkit(['topics', '--no-system']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option '--no-system'/);
    const unreachable = await mqkit(['topics'], { MQKIT_NAMESRV: '127.0.0.1:1' });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/cannot reach the name server 127\.0\.0\.1:1/);
  }, 60_000);

  it('lag, reset and tail exit 2 naming an unknown group or topic; a group that joined and committed nothing is no error', async () => {
    // The name server answers TOPIC_NOT_EXIST for the route of the group's %RETRY% topic (a broker would answer
    // GET_CONSUME_STATS of an unknown group with an empty table, as for a known group with nothing committed).
    const unknownGroup = uniqueName('nosuchgroup');
    for (const args of [
      ['lag', '--group', unknownGroup],
      ['lag', '--group', unknownGroup, '--json'],
    ]) {
      const lag = await mqkit(args);
      expect({ args, code: lag.code, stdout: lag.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(lag.stderr).toContain(`mqkit: unknown consumer group ${unknownGroup}: no broker knows it`);
    }
    const reset = await mqkit(['reset', '--group', unknownGroup, '--to', '0']);
    expect(reset.code).toBe(2);
    expect(reset.stderr).toContain(`unknown consumer group ${unknownGroup}`);
    const unknownTopic = uniqueName('nosuchtopic');
    const tail = await mqkit(['tail', unknownTopic]);
    expect(tail.code).toBe(2);
    expect(tail.stderr).toContain(`mqkit: unknown topic ${unknownTopic}: the name server has no route for it`);

    // A member's heartbeat makes the broker create %RETRY%<group>: from then on the group is known, with no offset
    // (the member polls nothing, so it commits nothing).
    const topic = uniqueName('cliKnown');
    const group = uniqueName('cliKnownGroup');
    await harness.createTopic(topic, 1);
    const member = await createPullConsumer({
      transport: harness.transport(),
      group,
      profile: 'fast',
      instanceName: uniqueName('cliKnownMember'),
    });
    const admin = await createAdmin({ transport: harness.transport() });
    try {
      await member.subscribe(topic);
      await waitFor(async () => (await admin.topicStats(retryTopicOf(group))).length > 0, { timeoutMs: 60_000 });
      const known = await mqkit(['lag', '--group', group]);
      expect(known.code, known.stderr).toBe(0);
      expect(known.stdout).toBe(`group ${group} has no committed offset yet: no queue to report\n`);
    } finally {
      await Promise.all([member.close(), admin.close()]);
    }
  }, 120_000);

  it('topic create, topics, send, and tail with tags and with SQL92, printing messages as they arrive without committing', async () => {
    const topic = uniqueName('cli');
    const created = await mqkit(['topic', 'create', topic, '--queues', '2', '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(json<{ routedQueues: number }>(created).routedQueues).toBe(4);
    const listed = await mqkit(['topics', '--json']);
    expect(json<string[]>(listed)).toContain(topic);
    // RocketMQ's own topics (every broker creates <cluster>_REPLY_TOPIC at start) and the groups' retry topics only
    // with --all.
    expect(json<string[]>(listed).some((t) => t.startsWith('%RETRY%') || t.endsWith('_REPLY_TOPIC'))).toBe(false);
    const all = json<string[]>(await mqkit(['topics', '--all', '--json']));
    expect(all).toContain(topic);
    expect(all.some((t) => t.endsWith('_REPLY_TOPIC'))).toBe(true);

    const sent = await mqkit([
      'send',
      topic,
      '--body',
      'hello',
      '--tags',
      'A',
      '--keys',
      'k1,k2',
      '--property',
      'region=eu',
      '--count',
      '3',
      '--json',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    const results = json<{ msgId: string; status: string }[]>(sent);
    expect(results.map((r) => r.status)).toEqual(['SEND_OK', 'SEND_OK', 'SEND_OK']);

    // From the beginning, filtered by tag: the three messages sent above.
    const fromStart = await mqkit(['tail', topic, '--from-beginning', '--tags', 'A', '--count', '3', '--json']);
    expect(fromStart.code, fromStart.stderr).toBe(0);
    const lines = fromStart.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            msgId: string;
            body: string;
            tags: string;
            keys: string[];
            userProperties: Record<string, string>;
            properties: Record<string, string>;
          },
      );
    expect(lines.map((l) => l.msgId).sort()).toEqual(results.map((r) => r.msgId).sort());
    expect(lines[0]).toMatchObject({
      body: 'hello',
      tags: 'A',
      keys: ['k1', 'k2'],
      properties: expect.objectContaining({ region: 'eu' }),
    });
    // What the sender put, apart from what the producer and the broker added (UNIQ_KEY, WAIT, MSG_REGION, ...).
    for (const l of lines) expect(l.userProperties).toEqual({ region: 'eu' });
    expect(Object.keys(lines[0]!.properties).length).toBeGreaterThan(1);

    // New messages only, filtered by SQL92 on the broker: it prints what is sent once it says it is tailing.
    const tail = started(['tail', topic, '--sql', "region = 'eu' AND amount > 10", '--count', '2']);
    await waitFor(() => tail.out.stderr.includes('tailing'), { timeoutMs: 60_000, message: () => tail.out.stderr });
    const producer = await createProducer({
      transport: harness.transport(),
      group: uniqueName('cliProducer'),
      profile: 'fast',
      sendMsgTimeout: 10_000,
    });
    try {
      for (const [amount, region] of [
        [5, 'eu'],
        [20, 'us'],
        [30, 'eu'],
        [40, 'eu'],
      ] as const) {
        await producer.send({
          topic,
          body: `amount-${amount}-${region}`,
          properties: { region, amount: String(amount) },
        });
      }
    } finally {
      await producer.stop();
    }
    expect(await tail.ended, tail.out.stderr).toBe(0);
    const printed = tail.out.stdout.trim().split('\n');
    expect(printed).toHaveLength(2);
    // The two matches went to different queues (round robin over 4), which tail pulls independently: the order in
    // which they print is not defined across queues.
    expect(printed.map((line) => line.split(' ').at(-1)).sort()).toEqual(['amount-30-eu', 'amount-40-eu']);
    // Each line shows the sender's properties (and none of the system ones).
    const props = printed.map((line) => JSON.parse(/ props=(\{.*\}) /.exec(line)?.[1] ?? 'null') as unknown);
    expect(props).toContainEqual({ region: 'eu', amount: '30' });
    expect(props).toContainEqual({ region: 'eu', amount: '40' });
  }, 240_000);

  it('lag and reset of a group, and top redrawing a live view in a pseudo-terminal', async () => {
    const topic = uniqueName('cliLag');
    const group = uniqueName('cliGroup');
    await harness.createTopic(topic, 1);
    await harness.produce(topic, 10);
    const consumed: Message[] = [];
    const app = await harness.app(
      [
        consumerClass(
          { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
          (m: Message<{ seq: number }>) => void consumed.push(m),
        ),
      ],
      { instanceName: uniqueName('cliMember') },
    );
    await waitFor(() => consumed.length === 10, { timeoutMs: 60_000 });
    await app.stop({ timeoutMs: 10_000 }); // commits 10 on both queues' brokers
    await harness.produce(topic, 5, { from: 10 });
    const lag = await mqkit(['lag', '--group', group, '--json']);
    expect(lag.code, lag.stderr).toBe(0);
    const progress = json<{ total: number; queues: { topic: string; lag: number }[] }>(lag);
    expect(progress.total).toBe(5);
    expect(new Set(progress.queues.map((q) => q.topic))).toEqual(new Set([topic]));
    const table = await mqkit(['lag', '--group', group]);
    expect(table.stdout).toMatch(/^topic\s+broker\s+queue\s+brokerOffset\s+consumerOffset\s+lag\s+client$/m);
    expect(table.stdout).toMatch(/total lag 5 over 2 queues/);

    // Back to the first message: the whole topic is lag again.
    const reset = await mqkit(['reset', '--group', group, '--to', new Date(0).toISOString()]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain(`reset ${group} on ${topic} to 1970-01-01T00:00:00.000Z`);
    await waitFor(async () => json<{ total: number }>(await mqkit(['lag', '--group', group, '--json'])).total === 15, {
      timeoutMs: 30_000,
    });

    // A live member consumes the backlog while top redraws in place.
    const member = await harness.app([consumerClass({ group, topic }, () => undefined)], {
      instanceName: uniqueName('cliTop'),
    });
    // Once it consumed the backlog and committed, every frame can name it as the owner.
    await waitFor(
      async () =>
        json<{ total: number; queues: { clientId?: string }[] }>(
          await mqkit(['lag', '--group', group, '--json']),
        ).queues.every((q) => q.clientId === member.clientId),
      { timeoutMs: 60_000 },
    );
    const frames = await inPseudoTerminal([BIN, 'top', '--group', group, '--interval', '500', '--iterations', '4'], {
      MQKIT_NAMESRV: cluster.namesrvAddr,
    });
    expect(frames.status, frames.output).toBe(0);
    const drawn = frames.output.split('\u001b[H\u001b[2J').filter((f) => f.includes('mqkit top'));
    expect(drawn).toHaveLength(4);
    expect(drawn.at(-1), drawn.at(-1)).toContain(member.clientId);
    expect(drawn.at(-1)).toMatch(
      new RegExp(`${topic}\\s+broker-[ab]\\s+0\\s+${member.clientId.replace(/[.]/g, '\\.')}\\s+\\d+`),
    );
  }, 240_000);
});

/**
 * Runs a command with a pseudo-terminal as its stdout, as a user's shell would (util-linux `script`; Python's pty
 * module where `script` is missing), and returns everything it drew. Asynchronous: the member it watches lives in
 * this process and must keep answering the broker's running-info requests meanwhile.
 */
async function inPseudoTerminal(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; output: string }> {
  const quoted = argv.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
  const [command, args] = hasScript
    ? ['script', ['-qfec', quoted, '/dev/null']]
    : ['python3', ['-c', 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)', ...argv]];
  const child = spawn(command, args, {
    env: { ...process.env, ...env, TERM: 'xterm' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { status, output };
}
