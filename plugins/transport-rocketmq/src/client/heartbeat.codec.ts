import type { ConsumerRegistration, SubscriptionData } from '@mqkit/core';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { expectCode } from './broker-response';

/** How a consumer consumes, by RocketMQ's ConsumeType names. */
export type ConsumeType = 'CONSUME_PASSIVELY' | 'CONSUME_ACTIVELY' | 'CONSUME_POP';

/** What one heartbeat carries. */
export interface HeartbeatInput {
  /** `ip@instance`, unique per client instance in a group: the rebalance sorts these. */
  readonly clientId: string;
  readonly consumers: readonly ConsumerRegistration[];
  readonly producerGroups?: readonly string[];
  /** Default CONSUME_PASSIVELY (a push consumer). */
  readonly consumeType?: ConsumeType;
}

/** A SubscriptionData as fastjson writes it (Sets become arrays; filterClassSource is never serialized). */
export function subscriptionJson(sub: SubscriptionData): {
  [key: string]: boolean | number | string | number[] | string[];
} {
  return {
    classFilterMode: false,
    codeSet: [...sub.codes],
    expressionType: sub.expressionType,
    subString: sub.expression,
    subVersion: sub.subVersion,
    tagsSet: [...sub.tags],
    topic: sub.topic,
  };
}

/**
 * HEART_BEAT (34): no header fields; the body is HeartbeatData JSON with fastjson's property names (`clientID`,
 * `withoutSub` from `isWithoutSub`). heartbeatFingerprint 0 selects the broker's v1 path, which registers every
 * subscription as sent. The codeSet must be exact: the broker filters by it when a pull carries no subscription.
 */
export function heartbeatRequest(input: HeartbeatInput): OutgoingRequest {
  const body = {
    clientID: input.clientId,
    consumerDataSet: input.consumers.map((c) => ({
      consumeFromWhere: c.consumeFromWhere,
      consumeType: c.consumeType ?? input.consumeType ?? 'CONSUME_PASSIVELY',
      groupName: c.group,
      messageModel: c.messageModel,
      subscriptionDataSet: c.subscriptions.map(subscriptionJson),
      unitMode: false,
    })),
    heartbeatFingerprint: 0,
    producerDataSet: (input.producerGroups ?? []).map((groupName) => ({ groupName })),
    withoutSub: false,
  };
  return { code: RequestCode.HEART_BEAT, body: Buffer.from(JSON.stringify(body), 'utf8') };
}

/** Checks a heartbeat answer (SUCCESS) and returns the broker's MQVersion ordinal, which tells what the broker is. */
export function parseHeartbeatResponse(
  response: RemotingCommand,
  brokerName?: string,
): { readonly brokerVersion: number } {
  expectCode(response, 'heartbeat', { brokerName });
  return { brokerVersion: response.version };
}

/** UNREGISTER_CLIENT (35): note the capital "ID" in clientID. */
export function unregisterRequest(
  clientId: string,
  groups: { consumerGroup?: string; producerGroup?: string },
): OutgoingRequest {
  return {
    code: RequestCode.UNREGISTER_CLIENT,
    extFields: { clientID: clientId, consumerGroup: groups.consumerGroup, producerGroup: groups.producerGroup },
  };
}
