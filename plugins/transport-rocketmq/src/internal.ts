/**
 * Internals shared with mqkit's own packages (the integration harness, benchmarks): the codecs and the
 * connection layer. Not a stable API for applications.
 */

// Wire constants and commands
export {
  LanguageCode,
  MAX_FRAME_LENGTH,
  MessageMagic,
  MessageSysFlag,
  MQVersion,
  PermName,
  PullSysFlag,
  RemotingFlag,
  RequestCode,
  ResponseCode,
  SerializeType,
  languageName,
  type LanguageName,
} from './protocol/remoting-codes';
export {
  emptyFields,
  isOneway,
  isResponse,
  putField,
  remotingCommand,
  stringFields,
  type RemotingCommand,
} from './protocol/remoting-command';

// Frames and headers
export { decodeCommand, encodeCommand } from './protocol/frame.codec';
export { FrameDecoder } from './protocol/frame-decoder';
export { decodeJsonHeader, encodeJsonHeader, type CommandHeader } from './protocol/json-header.codec';
export { decodeRocketMqHeader, encodeRocketMqHeader } from './protocol/rocketmq-header.codec';

// Messages and bodies
export {
  decodeMessageRecord,
  decodeMessageRecords,
  MIN_RECORD_SIZE,
  offsetMsgIdOf,
  type MessageDecodeOptions,
} from './protocol/message-record.decoder';
export { encodeMessageRecord, type MessageRecordInput } from './protocol/message-record.encoder';
export { decodeBatchBody, encodeBatchBody, type BatchEntry, type DecodedBatchEntry } from './protocol/batch-body.codec';
export {
  decodeProperties,
  encodeProperties,
  NAME_VALUE_SEPARATOR,
  PROPERTY_SEPARATOR,
} from './protocol/properties.codec';
export { DEFAULT_MAX_INFLATED_BYTES, inflateBody, type InflatedBody } from './protocol/body-compression';
export {
  formatIpv6,
  formatSocketAddress,
  isV4Mapped,
  parseSocketAddress,
  type RawSocketAddress,
} from './protocol/socket-address.codec';
export { formatLong, parseLong, readSafeInt64, toSafeNumber } from './protocol/checked-long';
export {
  FASTJSON_MAX_DEPTH,
  fastJsonEntries,
  isFastJsonObject,
  parseFastJson,
  parseFastJsonBody,
  type FastJsonMap,
  type FastJsonObject,
  type FastJsonValue,
} from './protocol/fastjson.parser';

export { stringifyFastJson, type FastJsonWritable } from './protocol/fastjson.writer';

// Client requests and responses (pure builders and parsers)
export {
  asArray,
  asInt,
  asObject,
  asString,
  expectCode,
  jsonBody,
  longField,
  optionalLongField,
} from './client/broker-response';
export {
  brokerAddressOf,
  MASTER_ID,
  parseTopicRoute,
  publishQueuesOf,
  routeRequest,
  STANDARD_JSON_VERSION,
  subscribeQueuesOf,
  type BrokerData,
  type QueueData,
  type TopicRoute,
} from './client/topic-route.codec';
export {
  heartbeatRequest,
  parseHeartbeatResponse,
  unregisterRequest,
  type ConsumeType,
  type HeartbeatInput,
} from './client/heartbeat.codec';
export { parsePullResponse, pullMessageRequest, type PullOutcome } from './client/pull-message.codec';
export {
  parseConsumerRunningInfoRequest,
  parseNotifyConsumerIdsChanged,
  parseOffsetTable,
  parseResetOffsetRequest,
  type ResetOffsetRequest,
} from './client/broker-callbacks.codec';
export {
  maxOffsetRequest,
  minOffsetRequest,
  parseOffsetResponse,
  parseQueryConsumerOffset,
  queryConsumerOffsetRequest,
  searchOffsetRequest,
  updateConsumerOffsetRequest,
} from './client/consumer-offset.codec';
export {
  AUTO_CREATE_TOPIC,
  DEFAULT_TOPIC_QUEUE_NUMS,
  parseSendResponse,
  sendBatchRequest,
  sendMessageRequest,
} from './client/send-message.codec';
export { sendBackRequest, type SendBackInput } from './client/send-back.codec';
export { lockBatchRequest, parseLockBatchResponse, unlockBatchRequest } from './client/lock-batch.codec';
export { consumerListRequest, parseConsumerListResponse } from './client/consumer-list.codec';
export { clusterInfoRequest, parseClusterInfo } from './client/cluster-info.codec';
export { createTopicRequest } from './client/create-topic.codec';
export { parseResetOffsetResponse, resetOffsetRequest } from './client/reset-offset.codec';
export { consumerRunningInfoBody, isConsumerStatus, type RunningInfoInput } from './client/consumer-running-info.codec';
export { consumeStatsRequest, parseConsumeStats } from './client/consume-stats.codec';
export { parseTopicStats, topicStatsRequest } from './client/topic-stats.codec';
export {
  consumerConnectionRequest,
  parseConsumerConnection,
  parseSubscriptionData,
} from './client/consumer-connection.codec';
export { consumerRunningInfoRequest, parseOwnedQueues } from './client/running-info-request.codec';
export {
  parseQueryMessageResponse,
  parseViewMessageResponse,
  queryMessageRequest,
  UNIQUE_KEY_QUERY_FLAG,
  viewMessageRequest,
} from './client/query-message.codec';
export {
  createSubscriptionGroupRequest,
  parseCreateSubscriptionGroupResponse,
} from './client/subscription-group.codec';
export { parseTopicList, topicListRequest } from './client/topic-list.codec';
export { decodeOffsetMsgId, type OffsetMessageId } from './protocol/message-id.codec';

// The transport's parts (one session per app, one class per role)
export { RocketMqSession } from './transport/rocketmq-session';
export { BrokerReleases, releaseName, type ReleaseName } from './transport/broker-releases';
export {
  checkTransportOptions,
  resolveTransportOptions,
  type ResolvedTransportOptions,
} from './transport/rocketmq-transport.options';
export { NameServerClient } from './route/name-server.client';
export { TopicRouteTable, type RouteTableHooks } from './route/topic-route.table';
export { routeFingerprint } from './route/route-fingerprint';
export { RocketMqGroupMembership } from './roles/group-membership.role';
export { BROKER_HOLD_SCAN_MS, RocketMqMessagePuller } from './roles/message-puller.role';
export { RocketMqBrokerOffsets } from './roles/broker-offsets.role';
export { CommitLedger } from './roles/commit-ledger';
export { RocketMqRetryChannel } from './roles/retry-channel.role';
export { RocketMqQueueLocks } from './roles/queue-locks.role';
export { RocketMqMessageSender } from './roles/message-sender.role';
export { RocketMqTopicAdmin } from './roles/topic-admin.role';
export { RocketMqOffsetAdmin } from './roles/offset-admin.role';
export { RocketMqClusterAdmin } from './roles/cluster-admin.role';
export { brokerRequestHandler, type BrokerRequestDeps } from './roles/broker-request.handler';

// ACL
export {
  aclSignature,
  aclSigningContent,
  checkCredentials,
  signExtFields,
  ACCESS_KEY,
  SECURITY_TOKEN,
  SIGNATURE,
} from './acl/acl-signer';

// Connections
export {
  RemotingConnection,
  type RemotingConnectionOptions,
  type RemotingConnectionState,
} from './remoting/remoting-connection';
export { RemotingClient } from './remoting/remoting-client';
export { openSocket, parseAddress } from './remoting/open-socket';
export { RECONNECT_DEFAULTS, reconnectDelay } from './remoting/reconnect-backoff';
export type {
  OutgoingRequest,
  RemotingReply,
  RemotingRequestHandler,
  RequestOptions,
} from './remoting/remoting-request';
