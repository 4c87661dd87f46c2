import type { Cluster } from '../connect';
import type { Output } from '../output';

export interface SendArgs {
  readonly topic: string;
  readonly body: string;
  readonly tags?: string;
  readonly keys?: readonly string[];
  readonly properties?: Record<string, string>;
  readonly count: number;
  readonly group: string;
}

/** `mqkit send T --body ...`: sends the body as it is (UTF-8), `--count` times, and prints each result. */
export async function send(cluster: Cluster, out: Output, args: SendArgs): Promise<void> {
  const producer = await cluster.producer(args.group);
  const results = [];
  for (let i = 0; i < args.count; i++) {
    const r = await producer.send({
      topic: args.topic,
      body: args.body,
      tags: args.tags,
      keys: args.keys,
      properties: args.properties,
    });
    results.push({
      msgId: r.msgId,
      offsetMsgId: r.offsetMsgId,
      status: r.status,
      brokerName: r.messageQueue.brokerName,
      queueId: r.messageQueue.queueId,
      queueOffset: r.queueOffset,
    });
  }
  out.table(
    ['msgId', 'status', 'broker', 'queue', 'offset'],
    results.map((r) => [r.msgId, r.status, r.brokerName, r.queueId, r.queueOffset]),
    results,
  );
}
