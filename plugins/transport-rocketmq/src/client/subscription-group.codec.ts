import type { SubscriptionGroupSettings } from '@mqkit/core';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { expectCode } from './broker-response';

/**
 * UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200 → a broker): no header; the body is a SubscriptionGroupConfig in JSON
 * (MQClientAPIImpl.createSubscriptionGroup). Fields left out (groupRetryPolicy, groupSysFlag, attributes,
 * subscriptionDataSet) keep the class's defaults when the broker decodes it; the broker then replaces the group's
 * config whole and persists it.
 */
export function createSubscriptionGroupRequest(settings: SubscriptionGroupSettings): OutgoingRequest {
  return { code: RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body: Buffer.from(JSON.stringify(settings), 'utf8') };
}

/** The broker answers SUCCESS; anything else is a BrokerError. */
export function parseCreateSubscriptionGroupResponse(
  response: RemotingCommand,
  group: string,
  brokerName: string,
): void {
  expectCode(response, `create subscription group ${group}`, { brokerName });
}
