import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asArray, asObject, asString, expectCode, jsonBody } from './broker-response';

/** GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206 → a name server): every topic any broker registered. */
export function topicListRequest(): OutgoingRequest {
  return { code: RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER };
}

/**
 * Reads TopicList (`topicList`, a set of names; `brokerAddr` is null here). A name server with
 * enableAllTopicList=false answers SYSTEM_ERROR "disable": a BrokerError.
 */
export function parseTopicList(response: RemotingCommand): string[] {
  expectCode(response, 'topic list');
  const body = asObject(jsonBody(response, 'TopicList'), 'TopicList');
  return asArray(body.topicList, 'topicList').map((t, i) => asString(t, `topicList[${i}]`));
}
