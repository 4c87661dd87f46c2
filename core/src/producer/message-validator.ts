import { MessageValidationError } from '../errors/validation.error';
import { NAME_PATTERN, TOPIC_MAX_LENGTH } from '../options/option-checks';
import { RESERVED_PROPERTIES } from '../model/system-properties';
import { FORBIDDEN_TOPICS } from '../model/system-topics';

export { FORBIDDEN_TOPICS, RESERVED_PROPERTIES };

export function validateTopic(topic: unknown): asserts topic is string {
  if (typeof topic !== 'string' || topic.trim() === '')
    throw new MessageValidationError('topic.blank', 'The specified topic is blank');
  if (topic.length > TOPIC_MAX_LENGTH)
    throw new MessageValidationError(
      'topic.length',
      `The specified topic is longer than topic max length ${TOPIC_MAX_LENGTH} (${topic.length})`,
    );
  if (!NAME_PATTERN.test(topic))
    throw new MessageValidationError(
      'topic.chars',
      `The specified topic [${topic}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`,
    );
  if (FORBIDDEN_TOPICS.has(topic))
    throw new MessageValidationError('topic.reserved', `Sending message to topic[${topic}] is forbidden`);
}

/** RocketMQ's checkMessage order: topic rules, then body present, non-empty, at most maxMessageSize bytes. */
export function validateBody(body: Buffer, maxMessageSize: number): void {
  if (body.length === 0) throw new MessageValidationError('body.empty', 'the message body length is zero');
  if (body.length > maxMessageSize)
    throw new MessageValidationError(
      'body.size',
      `the message body size over max value, MAX: ${maxMessageSize} (got ${body.length})`,
    );
}

export function validateProperties(properties: Readonly<Record<string, string>> | undefined): void {
  if (!properties) return;
  for (const [name, value] of Object.entries(properties)) {
    if (RESERVED_PROPERTIES.has(name))
      throw new MessageValidationError(
        'property.reserved',
        `The Property<${name}> is used by system, input another please`,
      );
    if (name.trim() === '' || typeof value !== 'string' || value.trim() === '')
      throw new MessageValidationError(
        'property.blank',
        `The name or value of property can not be null or blank string (${name})`,
      );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: \u0001 and \u0002 are RocketMQ's name/value and property separators on the wire, so a property may not contain them
    if (/[\u0001\u0002]/.test(name) || /[\u0001\u0002]/.test(value))
      throw new MessageValidationError(
        'property.chars',
        `property ${name} contains the separator characters U+0001 or U+0002`,
      );
  }
}

/** The delay and timer fields a message can carry. */
interface DelayFields {
  delayTimeLevel?: number;
  deliverTimeMs?: number;
  delayTimeMs?: number;
  delayTimeSec?: number;
}

/** Whether a message is delayed: a delay level above 0 or any timer field. */
export const isDelayed = (message: DelayFields): boolean =>
  (message.delayTimeLevel ?? 0) > 0 ||
  message.deliverTimeMs !== undefined ||
  message.delayTimeMs !== undefined ||
  message.delayTimeSec !== undefined;

/** The priority property (RocketMQ 5.4's Message.setPriority: at least 0), or undefined. */
export function priorityProperty(message: DelayFields & { priority?: number }): string | undefined {
  if (message.priority === undefined) return undefined;
  // The broker reads one message type per message, delays first (TopicMessageType.parseFromMessageProperty), and
  // drops the priority of a delayed one: refused here instead of lost there.
  if (isDelayed(message))
    throw new MessageValidationError('priority.delayed', 'priority cannot be combined with a delay level or a timer');
  if (!Number.isInteger(message.priority) || message.priority < 0 || message.priority > 0x7fffffff)
    throw new MessageValidationError(
      'priority.value',
      `priority must be an integer from 0 to 2147483647 (got ${message.priority})`,
    );
  return String(message.priority);
}

/**
 * The lite topic property (RocketMQ 5.5's `__LITE_TOPIC`), or undefined. A 5.5 broker stores the message in its topic
 * as usual and, with `enableLmq` and `enableMultiDispatch` on, also in the lite topic's own queue
 * (`%LMQ%$<topic>$<liteTopic>`), which POP consumers of that lite topic read. One message type per message, as the
 * broker reads them: not with a delay, a timer or a priority.
 */
export function liteTopicProperty(
  message: DelayFields & { liteTopic?: string; priority?: number },
): string | undefined {
  const lite = message.liteTopic;
  if (lite === undefined) return undefined;
  if (isDelayed(message) || message.priority !== undefined)
    throw new MessageValidationError(
      'liteTopic.combined',
      'liteTopic cannot be combined with a delay level, a timer or a priority',
    );
  // The broker joins parent and lite topic with `$` into the queue's name, so a `$` would name another queue.
  if (typeof lite !== 'string' || lite.length === 0 || lite.length > TOPIC_MAX_LENGTH || !NAME_PATTERN.test(lite))
    throw new MessageValidationError(
      'liteTopic.chars',
      `liteTopic must be 1 to ${TOPIC_MAX_LENGTH} characters of ^[%|a-zA-Z0-9_-]+$ (got ${JSON.stringify(lite)})`,
    );
  return lite;
}

/**
 * Timer fields (Java 5's setDeliverTimeMs / setDelayTimeMs / setDelayTimeSec): at most one, a positive integer,
 * never with a delay level. Java sends both and the broker then silently drops the timer (HookUtils); mqkit refuses
 * instead. Returns the property to set, or undefined.
 */
export function timerProperty(message: DelayFields): [string, string] | undefined {
  const given = (
    [
      ['deliverTimeMs', message.deliverTimeMs, 'TIMER_DELIVER_MS'],
      ['delayTimeMs', message.delayTimeMs, 'TIMER_DELAY_MS'],
      ['delayTimeSec', message.delayTimeSec, 'TIMER_DELAY_SEC'],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (given.length === 0) return undefined;
  if (given.length > 1)
    throw new MessageValidationError(
      'timer.several',
      `give one of deliverTimeMs, delayTimeMs and delayTimeSec (got ${given.map(([name]) => name).join(', ')})`,
    );
  const [name, value, property] = given[0]!;
  if (!Number.isSafeInteger(value) || value! <= 0)
    throw new MessageValidationError('timer.value', `${name} must be a positive integer (got ${value})`);
  if (message.delayTimeLevel !== undefined && message.delayTimeLevel > 0) {
    throw new MessageValidationError(
      'timer.delay-level',
      `${name} cannot be combined with delayTimeLevel (the broker would drop the timer and use the level)`,
    );
  }
  return [property, String(value)];
}

export function validateDelayLevel(level: number | undefined): void {
  if (level === undefined || level === 0) return;
  if (!Number.isInteger(level) || level < 0)
    throw new MessageValidationError('delay.level', `delayTimeLevel must be an integer >= 0 (got ${level})`);
}
