import type { MessageQueue, OffsetAdmin } from '@mqkit/core';
import { parseResetOffsetResponse, resetOffsetRequest } from '../client/reset-offset.codec';
import { MASTER_ID } from '../client/topic-route.codec';
import { BrokerNotFoundError } from '../errors/broker-not-found.error';
import type { RocketMqSession } from '../transport/rocketmq-session';

/**
 * Group-wide offset reset by time (`mqadmin resetOffsetByTime`): INVOKE_BROKER_TO_RESET_OFFSET to every master of
 * the topic. On RocketMQ 5.x (useServerSideResetOffset, on by default) the broker stores the new offsets, ignores
 * commits for those queues until then, and answers each queue's next pull with PULL_OFFSET_MOVED and the new
 * offset, which core applies as it applies OFFSET_ILLEGAL. With that option off, the broker instead pushes
 * RESET_CONSUMER_CLIENT_OFFSET to every member, answered by the transport's broker-request handler.
 */
export class RocketMqOffsetAdmin implements OffsetAdmin {
  constructor(private readonly session: RocketMqSession) {}

  async resetOffsetByTimestamp(group: string, topic: string, timestamp: number): Promise<void> {
    await this.resetAll(group, topic, timestamp);
  }

  /** The same reset, resolving with the offsets every broker set. */
  async resetAll(
    group: string,
    topic: string,
    timestamp: number,
  ): Promise<Array<{ mq: MessageQueue; offset: number }>> {
    const route = await this.session.routes.fetch(topic);
    const masters = (route?.brokerDatas ?? []).filter(
      (b) => b.brokerAddrs.has(MASTER_ID) && route!.queueDatas.some((q) => q.brokerName === b.brokerName),
    );
    if (masters.length === 0) throw new BrokerNotFoundError('(any master)', topic);
    const results = await Promise.all(
      masters.map(async (broker) => {
        const response = await this.session.request(
          broker.brokerAddrs.get(MASTER_ID)!,
          resetOffsetRequest(group, topic, timestamp),
        );
        return parseResetOffsetResponse(response, group, topic, broker.brokerName);
      }),
    );
    return results.flat();
  }
}
