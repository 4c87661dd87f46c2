import 'reflect-metadata';

// Decorators and definitions
export { Consumer } from './decorators/consumer.decorator';
export { CONSUMER_METADATA, readConsumerMetadata, type ConsumerMetadata } from './decorators/consumer.metadata';
export type {
  ConsumerDeclaration,
  ConsumerDefinition,
  HandlerRef,
  SubscriptionDefinition,
} from './definition/consumer-definition';
export type { Constructor } from './definition/explore-consumers';
export { jsonCodec, rawCodec, stringCodec } from './definition/json.codec';

// Options
export { CONSUMER_DEFAULTS, type ConsumerOptions, type ResolvedGroupOptions } from './options/consumer-options';
export { DEFAULT_PROFILE, FAST_PROFILE, resolveProfile, type Profile, type ProfileOption } from './options/profile';

// Model
export {
  ConsumeFromWhere,
  ConsumeMode,
  ConsumeStatus,
  CONSUME_SUCCESS,
  DEFAULT_DELAY_LEVELS_MS,
  DLQ_GROUP_TOPIC_PREFIX,
  MessageConst,
  MessageModel,
  RECONSUME_LATER,
  RETRY_GROUP_TOPIC_PREFIX,
  SUSPEND_CURRENT_QUEUE_A_MOMENT,
  dlqTopicOf,
  isRetryTopic,
  replyTopicOf,
  retryTopicOf,
} from './model/constants';
export type { Message, MessageRecord } from './model/message';
export {
  compareJavaStrings,
  compareMessageQueues,
  mqKey,
  mqLabel,
  sameQueue,
  type MessageQueue,
} from './model/message-queue';
export { PullStatus, type PullResult } from './model/pull-result';
export { parseSubscription, sqlSubscription, tagMatches, type SubscriptionData } from './model/subscription';
export { compileSql92, Sql92Error, type Sql92Filter } from './filter/index';
export { javaStringHashCode } from './util/java-hash';
export { withoutNamespace, wrapNamespace } from './model/namespace';
export { isClusterTopic, isSystemTopic } from './model/system-topics';

// Transactions
export {
  defineTransactionListener,
  type LocalTransaction,
  type TransactionListener,
  type TransactionSendResult,
  type TransactionState,
} from './producer/transaction';

// Pull consumer
export { PullConsumer } from './pull/pull-consumer';
export { createPullConsumer } from './pull/create-pull-consumer';
export type { PullConsumerOptions } from './pull/pull-consumer-options';
export type { PullConsumerStatus } from './pull/pull-consumer-status';
export type { PullMode } from './pull/queue-selection';

// Errors
export * from './errors/index';

// Events
export { EventBus } from './events/event-bus';
export type { MqkitEvent, MqkitEventName, MqkitEvents, MqkitListener } from './events/event-map';
export { ofEvent } from './events/of-event';

// SPI
export type { AllocationInput, AllocationStrategy, StrategyOption } from './spi/allocation-strategy';
export type { Codec } from './spi/codec';
export type { OffsetStore, OffsetStoreContext, OffsetStoreProvider, OffsetWrite } from './spi/offset-store';
export type { LegacyOffsetStore, PersistOptions, ReadOffsetFrom } from './spi/legacy-offset-store';
export type { MqkitPlugin, PluginContext } from './spi/plugin';
export type { OptionalRole, TransportContext, TransportPlugin, TransportRoles } from './spi/transport.plugin';
export { Tokens } from './spi/tokens';
export type {
  BrokerCallbacks,
  DirectConsumeResult,
  EndTransactionRequest,
  ReplyRequest,
  BrokerOffsets,
  ConsumerRegistration,
  GroupMembership,
  MessagePuller,
  MessageSender,
  OutgoingRecord,
  PullRequest,
  QueueLocks,
  RetryChannel,
  RouteResolver,
  SubscriptionCheck,
  SendResult,
  SendStatus,
  TopicAdmin,
  OffsetAdmin,
} from './spi/transport.roles';
export type {
  ClusterAdmin,
  ConsumerConnection,
  ConsumerConnections,
  MessageQuery,
  QueueConsumeStats,
  SubscriptionGroupSettings,
  TopicListing,
  TopicQueueStats,
} from './spi/cluster-admin.role';

// Allocation
export { AllocateMessageQueueAveragely } from './allocation/averagely.strategy';
export { StrategyRegistry } from './allocation/strategy-registry';

// Offsets
export { BrokerOffsetStore, brokerOffsetStore } from './offsets/broker-offset-store';
export { LEGACY_OFFSET_STORE_WARNING } from './offsets/legacy-offset-store.adapter';

// Runtime and app
export type { ConsumeContext } from './spi/consume-context';
export type { ConsumeHook, ConsumeInvocation } from './spi/consume-hook';
export type { ConsumerStatus, QueueStatus, ReleaseReport, StopReport } from './model/consumer-status';
export type { ProcessQueueState } from './consumer/queue/process-queue';
export type { TopicStatsReport } from './model/consumer-status';
export { ConsumerApp, type AppState, type AppStatus, type ConsumerControl } from './app/consumer-app';
export { createConsumerApp } from './app/create-consumer-app';
export type { ConsumerAppOptions, MessageQueueListener, StopOptions } from './app/app-options';
export type { ClientHostOptions } from './app/client-host';
export type { CreatedByMqkit } from './util/created-by-mqkit';
export { createProducer, type StandaloneProducer, type StandaloneProducerOptions } from './app/create-producer';
export { createAdmin, type Admin } from './app/create-admin';
export type { ConsumerProgress, QueryByKeyOptions } from './app/admin-reads';
export type { SubscriptionGroupOptions } from './app/subscription-group-options';

// Producer
export { Producer, type RequestOptions, type SendOptions } from './producer/producer';
export { REPLY_MESSAGE_FLAG, isRequest } from './producer/reply-message';
export type { EndTransactionInvocation, SendHook, SendInvocation, SendKind } from './spi/send-hook';
export { selectByHash, selectByRandom, type MessageQueueSelector } from './producer/queue-selector';
export { LatencyFaultTolerance } from './producer/latency-fault-tolerance';
export type { ProducerOptions } from './producer/producer-options';
export type { CompressionType } from './codec/compression-type';
export type { OutgoingMessage } from './model/outgoing-message';

// Message trace
export type { MessageTraceOptions } from './options/trace-options';
export type { TraceStatus } from './trace/trace-dispatcher';
export {
  ConsumeReturnType,
  DEFAULT_TRACE_REGION_ID,
  MessageType,
  RMQ_SYS_TRACE_TOPIC,
  type TraceBean,
  type TraceContext,
  type TraceTransactionState,
  type TraceType,
} from './trace/trace-context';
export { decodeTraceData, encodeTraceContext, type TraceTransfer } from './trace/trace-data-encoder';
