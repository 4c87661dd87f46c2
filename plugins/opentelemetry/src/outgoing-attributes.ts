import type { OutgoingMessage, SendInvocation } from '@mqkit/core';
import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_MESSAGING_BATCH_MESSAGE_COUNT,
  ATTR_MESSAGING_ROCKETMQ_MESSAGE_DELAY_TIME_LEVEL,
  ATTR_MESSAGING_ROCKETMQ_MESSAGE_DELIVERY_TIMESTAMP,
  ATTR_MESSAGING_ROCKETMQ_MESSAGE_KEYS,
  ATTR_MESSAGING_ROCKETMQ_MESSAGE_TAG,
  ATTR_MESSAGING_ROCKETMQ_MESSAGE_TYPE,
  type RocketMqMessageType,
} from './semconv';

/** When a timer message is due, epoch ms (the broker counts a relative delay from its receipt: close to now). */
function deliveryTimestamp(message: OutgoingMessage, now: number): number | undefined {
  if (message.deliverTimeMs !== undefined) return message.deliverTimeMs;
  if (message.delayTimeMs !== undefined) return now + message.delayTimeMs;
  if (message.delayTimeSec !== undefined) return now + message.delayTimeSec * 1000;
  return undefined;
}

/**
 * The message attributes of a producer call. A batch gets only its count: its messages' tags and keys differ, and
 * a batch can hold neither delayed nor transactional messages (the producer refuses them).
 */
export function outgoingAttributes(call: SendInvocation, now = Date.now()): Attributes {
  if (call.kind === 'batch')
    return {
      [ATTR_MESSAGING_BATCH_MESSAGE_COUNT]: call.messages.length,
      [ATTR_MESSAGING_ROCKETMQ_MESSAGE_TYPE]: 'normal',
    };
  const message = call.messages[0];
  if (!message) return {};
  const attributes: Attributes = {};
  if (message.tags) attributes[ATTR_MESSAGING_ROCKETMQ_MESSAGE_TAG] = message.tags;
  const keys = typeof message.keys === 'string' ? [message.keys] : (message.keys ?? []);
  if (keys.length > 0) attributes[ATTR_MESSAGING_ROCKETMQ_MESSAGE_KEYS] = [...keys];
  let type: RocketMqMessageType = call.kind === 'transaction' ? 'transaction' : 'normal';
  if (message.delayTimeLevel !== undefined && message.delayTimeLevel > 0) {
    type = 'delay';
    attributes[ATTR_MESSAGING_ROCKETMQ_MESSAGE_DELAY_TIME_LEVEL] = message.delayTimeLevel;
  }
  const due = deliveryTimestamp(message, now);
  if (due !== undefined) {
    type = 'delay';
    attributes[ATTR_MESSAGING_ROCKETMQ_MESSAGE_DELIVERY_TIMESTAMP] = due;
  }
  attributes[ATTR_MESSAGING_ROCKETMQ_MESSAGE_TYPE] = type;
  return attributes;
}
