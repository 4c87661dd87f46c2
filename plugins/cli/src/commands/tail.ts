import type { Message, MessageQueue } from '@mqkit/core';
import { userProperties } from '@mqkit/core/internal';
import type { Cluster } from '../connect';
import { requireTopic } from '../known-names';
import type { Output } from '../output';
import { waitUntil } from '../wait-until';

export interface TailArgs {
  readonly topic: string;
  readonly tags?: string;
  readonly sql?: string;
  /** From the first stored message instead of new ones only. */
  readonly fromBeginning: boolean;
  /** Stop after this many messages (default: until interrupted). */
  readonly count?: number;
}

/**
 * `mqkit tail T [--tags E | --sql E]`: prints messages as they arrive, from a pull consumer of a throwaway group
 * that owns every queue of the topic and never commits (it cannot move a real group's offsets, and a tail that
 * joined a real group would take queues from its members). The broker filters by the tags or the SQL92 expression.
 * Says "tailing ..." on stderr once every queue is positioned: what is sent after that line is printed. A topic the
 * name server has no route for is a usage error (exit 2), not an endless wait.
 */
export async function tail(cluster: Cluster, out: Output, args: TailArgs, signal: AbortSignal): Promise<void> {
  await requireTopic(await cluster.admin(), args.topic);
  const consumer = await cluster.pullConsumer({
    group: `mqkit-tail-${process.pid}-${Date.now().toString(36)}`,
    autoCommit: false,
    consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
  });
  await consumer.subscribe(args.topic, { tags: args.tags, sql: args.sql });
  const queues = await consumer.queuesOf(args.topic);
  // The only member of its group owns every queue once its first rebalance ran.
  await waitUntil(
    () => consumer.assignment().length >= queues.length,
    signal,
    30_000,
    () => `tail: the queues of ${args.topic} were not assigned within 30 s`,
  );
  for (const mq of consumer.assignment())
    await (args.fromBeginning ? consumer.seekToBegin(mq) : consumer.seekToEnd(mq));
  process.stderr.write(
    `tailing ${args.topic} on ${queues.length} queues${args.sql ? ` where ${args.sql}` : args.tags ? ` tags ${args.tags}` : ''} (Ctrl-C stops)\n`,
  );
  let printed = 0;
  while (!signal.aborted && (args.count === undefined || printed < args.count)) {
    const messages = await consumer.poll({ timeoutMs: 500 });
    for (const m of messages) {
      if (args.count !== undefined && printed >= args.count) break;
      out.result(messageJson(m), () => messageLine(m));
      printed++;
    }
  }
}

/** The body as text when it is printable UTF-8, else base64 (flagged), so binary bodies never garble a terminal. */
function bodyText(body: Buffer): { text: string; encoding: 'utf8' | 'base64' } {
  const text = body.toString('utf8');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finds the control characters that would garble a terminal (tab, LF, VT, FF and CR pass)
  const printable = Buffer.from(text, 'utf8').equals(body) && !/[\u0000-\u0008\u000e-\u001f\u007f]/.test(text);
  return printable ? { text, encoding: 'utf8' } : { text: body.toString('base64'), encoding: 'base64' };
}

function queueLabel(mq: MessageQueue, offset: number): string {
  return `${mq.brokerName}/${mq.queueId}@${offset}`;
}

/**
 * One line per message: store time, queue@offset, msgId, tags, keys, the sender's properties (as JSON, so a value
 * with spaces or control characters can neither split nor garble the line), then the body.
 */
function messageLine(m: Message): string {
  const body = bodyText(m.body);
  const tags = m.tags ? ` tags=${m.tags}` : '';
  const keys = m.keys.length > 0 ? ` keys=${m.keys.join(',')}` : '';
  const user = userProperties(m.properties);
  const props = Object.keys(user).length > 0 ? ` props=${JSON.stringify(user)}` : '';
  return `${new Date(m.storeTimestamp).toISOString()} ${queueLabel(m.messageQueue, m.queueOffset)} ${m.msgId}${tags}${keys}${props} ${body.encoding === 'base64' ? 'base64:' : ''}${body.text}`;
}

function messageJson(m: Message): Record<string, unknown> {
  const body = bodyText(m.body);
  return {
    msgId: m.msgId,
    topic: m.topic,
    brokerName: m.brokerName,
    queueId: m.queueId,
    queueOffset: m.queueOffset,
    tags: m.tags ?? null,
    keys: m.keys,
    /** What the sender put, without RocketMQ's and mqkit's own properties. */
    userProperties: userProperties(m.properties),
    /** Every stored property, system ones included. */
    properties: m.properties,
    bornTimestamp: m.bornTimestamp,
    storeTimestamp: m.storeTimestamp,
    body: body.text,
    bodyEncoding: body.encoding,
  };
}
