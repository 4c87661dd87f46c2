import type { Cluster } from '../connect';
import { requireGroup } from '../known-names';
import type { Output } from '../output';
import { UsageError } from '../usage-error';

/**
 * `mqkit reset --group G --to TIME [--topic T]`: moves the group's offsets to the first message stored at or after
 * TIME, for the given topic or every topic the group consumes; running members are told by the broker.
 */
export async function reset(
  cluster: Cluster,
  out: Output,
  group: string,
  to: number,
  topic: string | undefined,
): Promise<void> {
  const admin = await cluster.admin();
  const topics = topic ? [topic] : [...new Set((await admin.consumerProgress(group)).map((r) => r.topic))];
  if (topics.length === 0) {
    await requireGroup(admin, group);
    throw new UsageError(`group ${group} has no consumed topic to reset: give --topic`);
  }
  for (const t of topics) await admin.resetOffsetByTimestamp(group, t, to);
  const at = new Date(to).toISOString();
  out.result({ group, topics, timestamp: to }, () => topics.map((t) => `reset ${group} on ${t} to ${at}`).join('\n'));
}
