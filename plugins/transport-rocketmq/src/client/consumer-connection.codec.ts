import { ProtocolError, type ConsumerConnections, type SubscriptionData } from '@mqkit/core';
import { fastJsonEntries, type FastJsonValue } from '../protocol/fastjson.parser';
import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asArray, asInt, asLong, asObject, asString, expectCode, jsonBody } from './broker-response';

const CONSUME_TYPES = ['CONSUME_PASSIVELY', 'CONSUME_ACTIVELY', 'CONSUME_POP'] as const;
const MESSAGE_MODELS = ['CLUSTERING', 'BROADCASTING'] as const;
const WHERE_FROM = ['CONSUME_FROM_LAST_OFFSET', 'CONSUME_FROM_FIRST_OFFSET', 'CONSUME_FROM_TIMESTAMP'] as const;
/** Java's deprecated ConsumeFromWhere constants, which the broker reports as the client sent them; read as their successors. */
const LEGACY_WHERE_FROM: Readonly<Record<string, (typeof WHERE_FROM)[number]>> = {
  CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST: 'CONSUME_FROM_LAST_OFFSET',
  CONSUME_FROM_MIN_OFFSET: 'CONSUME_FROM_FIRST_OFFSET',
  CONSUME_FROM_MAX_OFFSET: 'CONSUME_FROM_LAST_OFFSET',
};

/** GET_CONSUMER_CONNECTION_LIST (203 → a broker). */
export function consumerConnectionRequest(group: string): OutgoingRequest {
  return { code: RequestCode.GET_CONSUMER_CONNECTION_LIST, extFields: { consumerGroup: group } };
}

/**
 * Reads ConsumerConnection: `connectionSet` (clientId, clientAddr, language, version), the group's consumeType,
 * messageModel and consumeFromWhere from its latest heartbeat, and `subscriptionTable` (topic → SubscriptionData).
 * CONSUMER_NOT_ONLINE (the broker has no member of the group) is undefined; other codes are BrokerErrors.
 */
export function parseConsumerConnection(
  response: RemotingCommand,
  group: string,
  brokerName: string,
): ConsumerConnections | undefined {
  if (response.code === ResponseCode.CONSUMER_NOT_ONLINE) return undefined;
  expectCode(response, `connections of group ${group}`, { brokerName });
  const body = asObject(jsonBody(response, 'ConsumerConnection'), 'ConsumerConnection');
  const connections = asArray(body.connectionSet, 'connectionSet').map((value, i) => {
    const o = asObject(value, `connectionSet[${i}]`);
    return {
      clientId: asString(o.clientId, `connectionSet[${i}].clientId`),
      clientAddr: asString(o.clientAddr, `connectionSet[${i}].clientAddr`),
      // A LanguageCode the broker does not know decodes as null, which fastjson leaves out.
      language:
        o.language === undefined || o.language === null
          ? 'OTHER'
          : asString(o.language, `connectionSet[${i}].language`),
      version: asInt(o.version, `connectionSet[${i}].version`),
    };
  });
  const subscriptions = fastJsonEntries(body.subscriptionTable).map(([, value], i) =>
    parseSubscriptionData(value, `subscriptionTable[${i}]`),
  );
  const where = asString(body.consumeFromWhere, 'consumeFromWhere');
  return {
    connections,
    consumeType: oneOf(body.consumeType, 'consumeType', CONSUME_TYPES),
    messageModel: oneOf(body.messageModel, 'messageModel', MESSAGE_MODELS),
    consumeFromWhere: LEGACY_WHERE_FROM[where] ?? oneOf(where, 'consumeFromWhere', WHERE_FROM),
    subscriptions: subscriptions.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)),
  };
}

/** A SubscriptionData as fastjson writes it (the heartbeat's form: subString, tagsSet, codeSet, subVersion). */
export function parseSubscriptionData(value: FastJsonValue | undefined, path: string): SubscriptionData {
  const o = asObject(value, path);
  return {
    topic: asString(o.topic, `${path}.topic`),
    expression: asString(o.subString, `${path}.subString`),
    // Java leaves expressionType null for subscriptions of clients older than 4.1: those are TAG.
    expressionType:
      o.expressionType === undefined || o.expressionType === null
        ? 'TAG'
        : oneOf(o.expressionType, `${path}.expressionType`, ['TAG', 'SQL92'] as const),
    tags: new Set(asArray(o.tagsSet, `${path}.tagsSet`).map((t, i) => asString(t, `${path}.tagsSet[${i}]`))),
    codes: new Set(asArray(o.codeSet, `${path}.codeSet`).map((c, i) => asInt(c, `${path}.codeSet[${i}]`))),
    subVersion: asLong(o.subVersion, `${path}.subVersion`),
  };
}

function oneOf<T extends string>(value: FastJsonValue | undefined, path: string, allowed: readonly T[]): T {
  const text = asString(value, path);
  if (!(allowed as readonly string[]).includes(text))
    throw new ProtocolError(`${path} = ${JSON.stringify(text.slice(0, 40))} is not one of ${allowed.join(', ')}`);
  return text as T;
}
