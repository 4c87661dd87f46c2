import { createTopic, rocketMqTestCluster, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll } from 'vitest';
import { RocketMqHarness } from '../rocketmq/rocketmq-fixtures';
import { COMPAT_ENDPOINT_ENV, compatTarget, type CompatTarget } from './compat-target';

/**
 * The suite's harness on the run's target. Clients reach the brokers by the name server, or by the proxy's
 * remoting endpoint when the target is a proxy (it answers route queries naming itself); topics are created on
 * the brokers directly, as an operator would, since creating them is not what is being tested.
 */
export class CompatHarness extends RocketMqHarness {
  constructor(
    cluster: RocketMqCluster,
    readonly target: CompatTarget,
    endpoint: string | undefined,
  ) {
    super(cluster, endpoint ? { nameServer: endpoint } : {});
  }

  override async createTopic(topic: string, queues: number): Promise<void> {
    await createTopic(this.cluster, topic, { queues });
  }

  /** A RocketMQ 5.5 lite topic: `message.type=LITE`, as `mqadmin updateTopic -a +message.type=LITE` makes it. */
  async createLiteTopic(topic: string, queues: number): Promise<void> {
    await createTopic(this.cluster, topic, { queues, attributes: { 'message.type': 'LITE' } });
  }
}

/** The suite file's harness, made before its tests and closed after them. */
export function useCompat(): () => CompatHarness {
  let harness: CompatHarness | undefined;
  beforeAll(async () => {
    harness = new CompatHarness(await rocketMqTestCluster(), compatTarget(), process.env[COMPAT_ENDPOINT_ENV]);
  });
  afterAll(async () => harness?.close());
  return () => {
    if (!harness) throw new Error('the compatibility harness is used before its beforeAll ran');
    return harness;
  };
}
