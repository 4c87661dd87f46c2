import { MessageConst, type Message } from '@mqkit/core';
import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_MESSAGING_MESSAGE_CONVERSATION_ID,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_ROCKETMQ_MESSAGE_GROUP,
  ATTR_MESSAGING_ROCKETMQ_MESSAGE_KEYS,
  ATTR_MESSAGING_ROCKETMQ_MESSAGE_TAG,
  ATTR_MESSAGING_ROCKETMQ_MESSAGE_TYPE,
  type RocketMqMessageType,
} from './semconv';

/** MessageSysFlag.TRANSACTION_COMMIT_TYPE: the broker stores a committed half message with it. */
const TRANSACTION_COMMIT_TYPE = 0x8;
const TRANSACTION_TYPE_MASK = 0xc;
const TIMER_PROPERTIES = [MessageConst.TIMER_DELIVER_MS, MessageConst.TIMER_DELAY_MS, MessageConst.TIMER_DELAY_SEC];

/**
 * The type a delivered message shows, or undefined when it shows none. Not 'normal' by default: the broker removes
 * DELAY when it delivers a delayed message, so a delayed message and a normal one look the same to a consumer.
 */
export function deliveredMessageType(message: Message): RocketMqMessageType | undefined {
  if ((message.record.sysFlag & TRANSACTION_TYPE_MASK) === TRANSACTION_COMMIT_TYPE) return 'transaction';
  const { properties } = message;
  if (properties[MessageConst.SHARDING_KEY] !== undefined) return 'fifo';
  if (properties[MessageConst.DELAY] !== undefined || TIMER_PROPERTIES.some((p) => properties[p] !== undefined))
    return 'delay';
  return undefined;
}

/**
 * What varies from message to message: on a process span of one message, or on each link of a batch's span
 * (semconv: per-message attributes of a batch go on its links).
 */
export function deliveredMessageAttributes(message: Message): Attributes {
  const attributes: Attributes = { [ATTR_MESSAGING_MESSAGE_ID]: message.msgId };
  if (message.tags) attributes[ATTR_MESSAGING_ROCKETMQ_MESSAGE_TAG] = message.tags;
  if (message.keys.length > 0) attributes[ATTR_MESSAGING_ROCKETMQ_MESSAGE_KEYS] = [...message.keys];
  const type = deliveredMessageType(message);
  if (type) attributes[ATTR_MESSAGING_ROCKETMQ_MESSAGE_TYPE] = type;
  const group = message.properties[MessageConst.SHARDING_KEY];
  if (group !== undefined) attributes[ATTR_MESSAGING_ROCKETMQ_MESSAGE_GROUP] = group;
  // A request's correlation id is what semconv calls the conversation.
  const correlation = message.properties[MessageConst.CORRELATION_ID];
  if (correlation !== undefined) attributes[ATTR_MESSAGING_MESSAGE_CONVERSATION_ID] = correlation;
  return attributes;
}
