import { SubscriptionRejectedError, type SubscriptionCheck, type SubscriptionData } from '@mqkit/core';
import { checkClientConfigRequest, parseCheckClientConfigResponse } from '../client/check-client-config.codec';
import { MASTER_ID } from '../client/topic-route.codec';
import type { RocketMqSession } from '../transport/rocketmq-session';

/**
 * CHECK_CLIENT_CONFIG to the master of every broker serving the topic (Java asks one broker: a cluster with one
 * broker left misconfigured would then fail only that broker's pulls, at every pull).
 */
export class RocketMqSubscriptionCheck implements SubscriptionCheck {
  constructor(private readonly session: RocketMqSession) {}

  async check(group: string, subscription: SubscriptionData): Promise<void> {
    const route = await this.session.routes.route(subscription.topic).catch(() => undefined);
    if (!route) return;
    const request = checkClientConfigRequest(this.session.clientId, group, subscription);
    for (const broker of route.brokerDatas) {
      const address = broker.brokerAddrs.get(MASTER_ID) ?? [...broker.brokerAddrs.values()][0];
      if (address === undefined) continue;
      const refusal = parseCheckClientConfigResponse(await this.session.request(address, request), broker.brokerName);
      if (refusal) throw new SubscriptionRejectedError({ brokerName: broker.brokerName, ...refusal });
    }
  }
}
