import type { Cluster } from '../connect';
import { requireGroup } from '../known-names';
import type { Output } from '../output';

/**
 * `mqkit lag --group G`: per queue of each subscribed topic, the broker's offset, the group's, and the difference.
 * A group no broker knows is a usage error (exit 2); a known group with no committed offset yet says so.
 */
export async function lag(cluster: Cluster, out: Output, group: string): Promise<void> {
  const admin = await cluster.admin();
  const rows = await admin.consumerProgress(group);
  if (rows.length === 0) {
    await requireGroup(admin, group);
    out.result({ group, total: 0, queues: [] }, () => `group ${group} has no committed offset yet: no queue to report`);
    return;
  }
  const total = rows.reduce((sum, r) => sum + r.lag, 0);
  out.table(
    ['topic', 'broker', 'queue', 'brokerOffset', 'consumerOffset', 'lag', 'client'],
    rows.map((r) => [r.topic, r.brokerName, r.queueId, r.brokerOffset, r.consumerOffset, r.lag, r.clientId ?? '']),
    { group, total, queues: rows },
  );
  if (!out.json) out.line(`total lag ${total} over ${rows.length} queues`);
}
