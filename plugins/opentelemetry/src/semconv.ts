/**
 * The OpenTelemetry messaging semantic conventions this package emits (semantic-conventions docs/messaging/
 * rocketmq.md and docs/registry/attributes/messaging.md). They are still "Development" there, so they are not in
 * @opentelemetry/semantic-conventions' stable entry; OpenTelemetry asks libraries to copy incubating names rather
 * than depend on its `incubating` entry, whose exports may change in a minor release.
 */
export const ATTR_MESSAGING_SYSTEM = 'messaging.system';
export const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
export const ATTR_MESSAGING_OPERATION_NAME = 'messaging.operation.name';
export const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
export const ATTR_MESSAGING_CONSUMER_GROUP_NAME = 'messaging.consumer.group.name';
export const ATTR_MESSAGING_CLIENT_ID = 'messaging.client.id';
export const ATTR_MESSAGING_MESSAGE_ID = 'messaging.message.id';
export const ATTR_MESSAGING_MESSAGE_CONVERSATION_ID = 'messaging.message.conversation_id';
export const ATTR_MESSAGING_BATCH_MESSAGE_COUNT = 'messaging.batch.message_count';
export const ATTR_MESSAGING_ROCKETMQ_NAMESPACE = 'messaging.rocketmq.namespace';
export const ATTR_MESSAGING_ROCKETMQ_CONSUMPTION_MODEL = 'messaging.rocketmq.consumption_model';
export const ATTR_MESSAGING_ROCKETMQ_MESSAGE_TAG = 'messaging.rocketmq.message.tag';
export const ATTR_MESSAGING_ROCKETMQ_MESSAGE_KEYS = 'messaging.rocketmq.message.keys';
export const ATTR_MESSAGING_ROCKETMQ_MESSAGE_TYPE = 'messaging.rocketmq.message.type';
export const ATTR_MESSAGING_ROCKETMQ_MESSAGE_GROUP = 'messaging.rocketmq.message.group';
export const ATTR_MESSAGING_ROCKETMQ_MESSAGE_DELAY_TIME_LEVEL = 'messaging.rocketmq.message.delay_time_level';
export const ATTR_MESSAGING_ROCKETMQ_MESSAGE_DELIVERY_TIMESTAMP = 'messaging.rocketmq.message.delivery_timestamp';
/** Stable (general/recording-errors.md): the class of error an operation ended with. */
export const ATTR_ERROR_TYPE = 'error.type';

export const MESSAGING_SYSTEM_ROCKETMQ = 'rocketmq';

/** `messaging.operation.type` values: a send span's context is the messages' creation context, hence PRODUCER. */
export type MessagingOperationType = 'send' | 'process';

/** `messaging.rocketmq.message.type` values. */
export type RocketMqMessageType = 'normal' | 'fifo' | 'delay' | 'transaction';
