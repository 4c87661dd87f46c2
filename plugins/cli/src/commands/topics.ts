import type { Cluster } from '../connect';
import type { Output } from '../output';

/**
 * `mqkit topics`: the application topics the name server knows. `--all` keeps RocketMQ's own: its system topics,
 * and the groups' retry and DLQ topics (one per group, which would bury the application's in a busy cluster).
 */
export async function topics(cluster: Cluster, out: Output, all: boolean): Promise<void> {
  const listed = await (await cluster.admin()).topics({ system: all });
  const names = listed.filter((t) => all || !(t.startsWith('%RETRY%') || t.startsWith('%DLQ%'))).sort();
  out.result(names, () => names.join('\n'));
}
