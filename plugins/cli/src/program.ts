import { Command, Option } from 'commander';
import { lag } from './commands/lag';
import { reset } from './commands/reset';
import { send } from './commands/send';
import { tail } from './commands/tail';
import { top } from './commands/top';
import { topicCreate } from './commands/topic-create';
import { topics } from './commands/topics';
import { Cluster, type GlobalOptions, type TransportFactory } from './connect';
import { output } from './output';
import { parseInteger, parseProperty, parseTime } from './parse-values';

/** What a command needs from the process: its signal (Ctrl-C) and where to report. */
export interface RunContext {
  readonly signal: AbortSignal;
  readonly env: NodeJS.ProcessEnv;
  /** @internal The transport every connection uses (the tests' embedded broker); default RocketMQ's. */
  readonly transport?: TransportFactory;
}

type Action = (cluster: Cluster, out: ReturnType<typeof output>) => Promise<void>;

/** The `mqkit` command tree (commander), with every command's options checked as they are parsed. */
export function buildProgram(context: RunContext): Command {
  const program = new Command('mqkit')
    .description('Operate RocketMQ clusters and mqkit consumers: lag, topics, send, tail, reset, a live view.')
    .option('--namesrv <addr>', 'name server host:port (several: a;b); default $MQKIT_NAMESRV')
    .option('--json', 'print JSON (one value, or one line per message) instead of tables')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // Every command runs with one Cluster, closed however it ends.
  const run = (command: Command, action: Action) => async () => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    const cluster = new Cluster(globals, context.env, context.transport);
    try {
      await action(cluster, output(globals.json === true));
    } finally {
      await cluster.close();
    }
  };
  const lagCommand = program
    .command('lag')
    .description("a group's lag per queue: the broker's offset minus the group's")
    .requiredOption('--group <group>', 'consumer group');
  lagCommand.action(run(lagCommand, (c, out) => lag(c, out, lagCommand.opts<{ group: string }>().group)));

  const topicsCommand = program
    .command('topics')
    .description('the topics the name server knows')
    .option('--all', "include RocketMQ's system topics and the groups' %RETRY% and %DLQ% topics");
  topicsCommand.action(
    run(topicsCommand, (c, out) => topics(c, out, topicsCommand.opts<{ all?: boolean }>().all === true)),
  );

  const topic = program.command('topic').description('topic administration');
  const create = topic
    .command('create')
    .description('create (or grow) a topic on every master, then wait for its route')
    .argument('<topic>')
    .requiredOption('--queues <n>', 'queues per broker (1-1024)', (v) => parseInteger(v, '--queues', 1, 1024))
    .option('--brokers <names>', 'only these brokers, comma-separated', (v) =>
      v
        .split(',')
        .map((b) => b.trim())
        .filter((b) => b !== ''),
    );
  create.action(
    run(create, (c, out) =>
      topicCreate(
        c,
        out,
        create.args[0]!,
        create.opts<{ queues: number }>().queues,
        create.opts<{ brokers?: string[] }>().brokers,
      ),
    ),
  );

  const sendCommand = program
    .command('send')
    .description('send a message (the body as UTF-8 text)')
    .argument('<topic>')
    .requiredOption('--body <text>', 'message body')
    .option('--tags <tag>', 'the message tag')
    .option('--keys <keys>', 'keys, comma-separated', (v) => v.split(',').filter((k) => k !== ''))
    .option(
      '--property <name=value>',
      'a user property (repeatable)',
      (v, previous: Record<string, string> | undefined) => parseProperty(v, previous),
    )
    .option('--count <n>', 'send it this many times (1-100000)', (v) => parseInteger(v, '--count', 1, 100_000), 1)
    .option('--group <group>', 'producer group', 'mqkit-cli-producer');
  sendCommand.action(
    run(sendCommand, (c, out) => {
      const o = sendCommand.opts<{
        body: string;
        tags?: string;
        keys?: string[];
        property?: Record<string, string>;
        count: number;
        group: string;
      }>();
      return send(c, out, {
        topic: sendCommand.args[0]!,
        body: o.body,
        tags: o.tags,
        keys: o.keys,
        properties: o.property,
        count: o.count,
        group: o.group,
      });
    }),
  );

  const tailCommand = program
    .command('tail')
    .description('print messages of a topic as they arrive (a pull consumer that never commits)')
    .argument('<topic>')
    .addOption(new Option('--tags <expression>', "TAG expression, e.g. 'TagA || TagB'").conflicts('sql'))
    .addOption(
      new Option('--sql <expression>', 'SQL92 filter (broker needs enablePropertyFilter=true), e.g. "region = \'eu\'"'),
    )
    .option('--from-beginning', 'start at the first stored message instead of new ones')
    .option('--count <n>', 'exit after this many messages', (v) => parseInteger(v, '--count', 1, 1_000_000_000));
  tailCommand.action(
    run(tailCommand, (c, out) => {
      const o = tailCommand.opts<{ tags?: string; sql?: string; fromBeginning?: boolean; count?: number }>();
      return tail(
        c,
        out,
        {
          topic: tailCommand.args[0]!,
          tags: o.tags,
          sql: o.sql,
          fromBeginning: o.fromBeginning === true,
          count: o.count,
        },
        context.signal,
      );
    }),
  );

  const resetCommand = program
    .command('reset')
    .description("move a group's offsets to the first message stored at or after a time")
    .requiredOption('--group <group>', 'consumer group')
    .requiredOption('--to <time>', 'epoch ms or ISO-8601, e.g. 2026-12-01T10:00:00Z', (v) => parseTime(v))
    .option('--topic <topic>', 'only this topic (default: every topic the group consumes)');
  resetCommand.action(
    run(resetCommand, (c, out) =>
      reset(
        c,
        out,
        resetCommand.opts<{ group: string }>().group,
        resetCommand.opts<{ to: number }>().to,
        resetCommand.opts<{ topic?: string }>().topic,
      ),
    ),
  );

  const topCommand = program
    .command('top')
    .description("a live view of a group: each queue's owner, lag and rate, redrawn in place")
    .requiredOption('--group <group>', 'consumer group')
    .option('--interval <ms>', 'refresh period (200-60000)', (v) => parseInteger(v, '--interval', 200, 60_000), 2000)
    .option('--iterations <n>', 'exit after this many frames', (v) => parseInteger(v, '--iterations', 1, 1_000_000));
  topCommand.action(
    run(topCommand, (c, out) => {
      const o = topCommand.opts<{ group: string; interval: number; iterations?: number }>();
      return top(c, out, { group: o.group, intervalMs: o.interval, iterations: o.iterations }, context.signal);
    }),
  );
  for (const command of [program, ...program.commands, ...topic.commands])
    command.exitOverride().showHelpAfterError('(run with --help for usage)');
  return program;
}
