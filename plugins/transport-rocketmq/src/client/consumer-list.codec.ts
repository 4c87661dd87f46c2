import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asArray, asObject, asString, expectCode, jsonBody } from './broker-response';

/** GET_CONSUMER_LIST_BY_GROUP (38). */
export function consumerListRequest(group: string): OutgoingRequest {
  return { code: RequestCode.GET_CONSUMER_LIST_BY_GROUP, extFields: { consumerGroup: group } };
}

/**
 * The client ids of the group's members. A broker that knows no member answers SYSTEM_ERROR with the remark
 * `"no consumer for this group, <group>"` (ConsumerManageProcessor.getConsumerListByGroup); that is an empty group,
 * not a failure. Every other error code is a BrokerError.
 */
export function parseConsumerListResponse(response: RemotingCommand, group: string, brokerName?: string): string[] {
  if (response.code === ResponseCode.SYSTEM_ERROR && (response.remark ?? '').startsWith('no consumer for this group'))
    return [];
  expectCode(response, `consumer list of group ${group}`, { brokerName });
  if (response.body.length === 0) return [];
  const body = asObject(jsonBody(response, 'GetConsumerListByGroupResponseBody'), 'GetConsumerListByGroupResponseBody');
  return asArray(body.consumerIdList, 'consumerIdList').map((id, i) => asString(id, `consumerIdList[${i}]`));
}
