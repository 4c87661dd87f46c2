import type { Cluster } from '../connect';
import type { Output } from '../output';

/** `mqkit topics`: every topic the name server knows; `--all` keeps RocketMQ's system topics. */
export async function topics(cluster: Cluster, out: Output, all: boolean): Promise<void> {
  const names = [...(await (await cluster.admin()).topics({ system: all }))].sort();
  out.result(names, () => names.join('\n'));
}
