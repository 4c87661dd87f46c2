import { BrokerError, ProtocolError, type BrokerErrorKind, type MessageQueue } from '@mqkit/core';
import {
  isFastJsonObject,
  parseFastJsonBody,
  type FastJsonObject,
  type FastJsonValue,
} from '../protocol/fastjson.parser';
import { parseLong, toSafeNumber } from '../protocol/checked-long';
import type { RemotingCommand } from '../protocol/remoting-command';
import { ResponseCode } from '../protocol/remoting-codes';

/**
 * The remarks of SYSTEM_ERROR answers that are access-control refusals: a 4.x broker's AclException, and
 * rocketmq-proxy 5.x's authentication failures ("check signature failed.", "username cannot be null.").
 */
const ACL_REFUSAL = /AclException|check signature failed|username cannot be null|AuthenticationException/i;

/**
 * What core acts on, from RocketMQ's response code: only the transport reads the numbers. A 4.x broker refuses a
 * request that fails its ACL 1.0 check (a wrong signature, an unknown account, a missing permission) with
 * SYSTEM_ERROR and the AclException in the remark, where 5.x answers NO_PERMISSION: both are `no-permission`.
 */
export function brokerErrorKind(code: number, remark?: string): BrokerErrorKind {
  if (code === ResponseCode.SYSTEM_ERROR && remark !== undefined && ACL_REFUSAL.test(remark)) return 'no-permission';
  switch (code) {
    case ResponseCode.FLOW_CONTROL:
      return 'flow-control';
    case ResponseCode.TOPIC_NOT_EXIST:
      return 'topic-not-found';
    case ResponseCode.NO_PERMISSION:
      return 'no-permission';
    default:
      return 'other';
  }
}

/**
 * Returns the response when its code is one of `accepted` (default SUCCESS only); otherwise throws a BrokerError
 * carrying the code, the broker's remark and what was asked, with RocketMQ's retry verdict for the code.
 */
export function expectCode(
  response: RemotingCommand,
  what: string,
  options: { accepted?: readonly number[]; brokerName?: string } = {},
): RemotingCommand {
  const accepted = options.accepted ?? [0];
  if (accepted.includes(response.code)) return response;
  // A rocketmq-proxy remoting endpoint serves client traffic only; an admin request to it comes back as code 3.
  const hint =
    response.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED
      ? '; the peer does not serve this request (a rocketmq-proxy endpoint serves no admin requests: use the name server)'
      : '';
  throw new BrokerError(
    `${what} failed: code ${response.code}${response.remark ? ` (${response.remark})` : ''}${hint}`,
    {
      responseCode: response.code,
      brokerName: options.brokerName,
      kind: brokerErrorKind(response.code, response.remark),
      retriable: isAclRefusal(response) ? false : undefined,
    },
  );
}

/** A 4.x ACL 1.0 refusal: asking again with the same credentials gets the same answer. */
export function isAclRefusal(response: Pick<RemotingCommand, 'code' | 'remark'>): boolean {
  return (
    response.code === ResponseCode.SYSTEM_ERROR && brokerErrorKind(response.code, response.remark) === 'no-permission'
  );
}

/** A required extFields long as a checked number; absent or malformed is a ProtocolError naming the field. */
export function longField(response: RemotingCommand, key: string): number {
  const text = response.extFields[key];
  if (text === undefined) throw new ProtocolError(`response ${response.code} has no ${key}`);
  return parseLong(text, key);
}

/** An optional extFields long, undefined when absent. */
export function optionalLongField(response: RemotingCommand, key: string): number | undefined {
  const text = response.extFields[key];
  return text === undefined ? undefined : parseLong(text, key);
}

/** The response body parsed as (fastjson) JSON; an empty body is a ProtocolError naming what was expected. */
export function jsonBody(response: RemotingCommand, what: string): FastJsonValue {
  if (response.body.length === 0) throw new ProtocolError(`${what}: response has no body`);
  return parseFastJsonBody(response.body);
}

/** A parsed JSON object, or a ProtocolError naming `path`. */
export function asObject(value: FastJsonValue | undefined, path: string): FastJsonObject {
  if (!isFastJsonObject(value)) throw new ProtocolError(`${path} is not an object`);
  return value;
}

/** A parsed JSON array, or a ProtocolError naming `path`; null and absent read as empty, as fastjson leaves empty sets out. */
export function asArray(value: FastJsonValue | undefined, path: string): FastJsonValue[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ProtocolError(`${path} is not an array`);
  return value;
}

/** A string field, or a ProtocolError naming `path`. */
export function asString(value: FastJsonValue | undefined, path: string): string {
  if (typeof value !== 'string') throw new ProtocolError(`${path} is not a string`);
  return value;
}

/** An int32 field, or a ProtocolError naming `path`. */
export function asInt(value: FastJsonValue | undefined, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff)
    throw new ProtocolError(`${path} is not an int`);
  return value;
}

/** An int32 written as decimal text (an extFields value), or a ProtocolError naming `key`. */
export function asIntText(text: string, key: string): number {
  const n = /^-?\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < -0x80000000 || n > 0x7fffffff)
    throw new ProtocolError(`${key} = ${JSON.stringify(text.slice(0, 40))} is not an int`);
  return n;
}

/** A Java long field (a number, or a bigint past 2^53) as a checked number, or a ProtocolError naming `path`. */
export function asLong(value: FastJsonValue | undefined, path: string): number {
  if (typeof value === 'bigint') return toSafeNumber(value, path);
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new ProtocolError(`${path} is not a long`);
  return value === 0 ? 0 : value;
}

/** A MessageQueue written as JSON (fastjson's map keys in offsetTable, mqTable), or a ProtocolError naming `path`. */
export function asMessageQueue(value: FastJsonValue | undefined, path: string): MessageQueue {
  const o = asObject(value, path);
  return {
    topic: asString(o.topic, `${path}.topic`),
    brokerName: asString(o.brokerName, `${path}.brokerName`),
    queueId: asInt(o.queueId, `${path}.queueId`),
  };
}
