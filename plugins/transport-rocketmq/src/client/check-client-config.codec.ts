import type { SubscriptionData } from '@mqkit/core';
import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { expectCode } from './broker-response';
import { subscriptionJson } from './heartbeat.codec';

/** CHECK_CLIENT_CONFIG (46): no header; the body is CheckClientRequestBody JSON (clientId, group, subscriptionData). */
export function checkClientConfigRequest(
  clientId: string,
  group: string,
  subscription: SubscriptionData,
): OutgoingRequest {
  const body = { clientId, group, subscriptionData: subscriptionJson(subscription) };
  return { code: RequestCode.CHECK_CLIENT_CONFIG, body: Buffer.from(JSON.stringify(body), 'utf8') };
}

/** Why a broker refused the check: its filter setting is off, or the expression does not compile there. */
export type CheckClientConfigRefusal = { readonly setting?: 'enablePropertyFilter'; readonly remark: string };

/**
 * SUCCESS: accepted. SYSTEM_ERROR with "does not support consumer to filter message by ...": the broker runs
 * without enablePropertyFilter (ClientManageProcessor.checkClientConfig). SUBSCRIPTION_PARSE_FAILED: the remark is
 * the broker's parse error. Any other code is a BrokerError.
 */
export function parseCheckClientConfigResponse(
  response: RemotingCommand,
  brokerName: string,
): CheckClientConfigRefusal | undefined {
  if (response.code === ResponseCode.SUCCESS) return undefined;
  const remark = response.remark ?? '';
  if (response.code === ResponseCode.SYSTEM_ERROR && remark.includes('does not support consumer to filter'))
    return { setting: 'enablePropertyFilter', remark };
  if (response.code === ResponseCode.SUBSCRIPTION_PARSE_FAILED) return { remark };
  expectCode(response, 'subscription check', { brokerName });
  return undefined;
}
