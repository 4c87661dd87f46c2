import type { Cluster } from '../connect';
import type { Output } from '../output';

/** `mqkit lag --group G`: per queue of each subscribed topic, the broker's offset, the group's, and the difference. */
export async function lag(cluster: Cluster, out: Output, group: string): Promise<void> {
  const rows = await (await cluster.admin()).consumerProgress(group);
  const total = rows.reduce((sum, r) => sum + r.lag, 0);
  out.table(
    ['topic', 'broker', 'queue', 'brokerOffset', 'consumerOffset', 'lag', 'client'],
    rows.map((r) => [r.topic, r.brokerName, r.queueId, r.brokerOffset, r.consumerOffset, r.lag, r.clientId ?? '']),
    { group, total, queues: rows },
  );
  if (!out.json) out.line(`total lag ${total} over ${rows.length} queues`);
}
