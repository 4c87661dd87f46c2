import { createTopic, rocketMqTestCluster, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll } from 'vitest';
import { RocketMqHarness } from '../support/rocketmq-fixtures';
import { COMPAT_ENDPOINT_ENV, atLeast, compatTarget, type CompatTarget } from './compat-target';

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

  /**
   * A topic for one kind of message, as 5.x deployments create them (`mqadmin updateTopic -a +message.type=DELAY`):
   * rocketmq-proxy refuses a message whose type is not its topic's. A 4.x broker has no topic attributes.
   */
  async createTypedTopic(
    topic: string,
    queues: number,
    type: 'TRANSACTION' | 'DELAY' | 'PRIORITY' | 'LITE',
  ): Promise<void> {
    const attributes = atLeast(this.target, '5.0.0') ? { 'message.type': type } : undefined;
    await createTopic(this.cluster, topic, { queues, attributes });
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
