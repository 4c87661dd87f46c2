import { RocketMqHarnessError } from './rocketmq-harness.error';
import { pollUntilReady } from './cluster-readiness';
import { sendProbeRequest } from './remoting-probe';
import type { RocketMqCluster } from './rocketmq-cluster';

const UPDATE_AND_CREATE_TOPIC = 17;
const GET_ROUTEINFO_BY_TOPIC = 105;

/**
 * Creates `topic` with `queues` read/write queues on every running broker of the cluster (the test brokers run
 * with autoCreateTopicEnable=false), then waits until the name server routes it to all of them.
 */
export async function createTopic(
  cluster: RocketMqCluster,
  topic: string,
  options: {
    queues?: number;
    timeoutMs?: number;
    /** RocketMQ 5 topic attributes (`message.type: 'LITE'`), sent as mqadmin's `-a +key=value,...`. */
    attributes?: Readonly<Record<string, string>>;
  } = {},
): Promise<void> {
  const queues = String(options.queues ?? 4);
  const brokers = cluster.brokers.filter((b) => b.pid !== undefined || !cluster.managed);
  for (const broker of brokers) {
    const response = await sendProbeRequest(
      broker.addr,
      {
        code: UPDATE_AND_CREATE_TOPIC,
        extFields: {
          topic,
          defaultTopic: 'TBW102',
          readQueueNums: queues,
          writeQueueNums: queues,
          perm: '6', // read + write
          topicFilterType: 'SINGLE_TAG',
          topicSysFlag: '0',
          order: 'false',
          ...(options.attributes
            ? {
                attributes: Object.entries(options.attributes)
                  .map(([k, v]) => `+${k}=${v}`)
                  .join(','),
              }
            : {}),
        },
      },
      cluster.probeOptions,
    );
    if (response.code !== 0) {
      const why = `code ${response.code} ${response.remark ?? ''}`;
      throw new RocketMqHarnessError('start', `broker ${broker.name} refused to create topic ${topic}: ${why}`);
    }
  }
  // acceptStandardJsonOnly (and version ≥ 401 in the probe header) make the route body standard JSON.
  await pollUntilReady(
    `route of topic ${topic}`,
    async () => {
      const response = await sendProbeRequest(
        cluster.namesrvAddr,
        { code: GET_ROUTEINFO_BY_TOPIC, extFields: { topic, acceptStandardJsonOnly: 'true' } },
        cluster.probeOptions,
      );
      if (response.code !== 0) return false;
      const route = JSON.parse(response.body.toString('utf8')) as { queueDatas?: { brokerName: string }[] };
      return brokers.every((b) => route.queueDatas?.some((q) => q.brokerName === b.name));
    },
    { timeoutMs: options.timeoutMs ?? 30_000, intervalMs: 100 },
  );
}
