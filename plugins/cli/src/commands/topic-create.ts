import type { Cluster } from '../connect';
import type { Output } from '../output';

/** `mqkit topic create T --queues N [--brokers a,b]`: on every master (or the listed ones), then waits for the route. */
export async function topicCreate(
  cluster: Cluster,
  out: Output,
  topic: string,
  queues: number,
  brokers: readonly string[] | undefined,
): Promise<void> {
  const admin = await cluster.admin();
  await admin.createTopic({ topic, queues, brokers });
  const routed = await admin.queues(topic);
  out.result(
    { topic, queues, routedQueues: routed.length },
    () =>
      `created ${topic}: ${queues} queues on ${brokers?.join(', ') ?? 'every master'} (${routed.length} readable queues routed)`,
  );
}
