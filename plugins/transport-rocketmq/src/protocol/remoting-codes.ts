/*
 * Every number the remoting protocol uses, named as RocketMQ names it (RequestCode, ResponseCode,
 * RemotingSysResponseCode, LanguageCode, MessageSysFlag, PullSysFlag, PermName, MessageDecoder). Checked against
 * apache/rocketmq develop (5.3.4-SNAPSHOT). One file, so a reader finds every wire constant in one place.
 */

/** Request codes (RocketMQ's RequestCode) a client sends or receives. */
export const RequestCode = {
  SEND_MESSAGE: 10,
  PULL_MESSAGE: 11,
  QUERY_MESSAGE: 12,
  QUERY_CONSUMER_OFFSET: 14,
  UPDATE_CONSUMER_OFFSET: 15,
  UPDATE_AND_CREATE_TOPIC: 17,
  GET_BROKER_RUNTIME_INFO: 28,
  SEARCH_OFFSET_BY_TIMESTAMP: 29,
  GET_MAX_OFFSET: 30,
  GET_MIN_OFFSET: 31,
  GET_EARLIEST_MSG_STORETIME: 32,
  VIEW_MESSAGE_BY_ID: 33,
  HEART_BEAT: 34,
  UNREGISTER_CLIENT: 35,
  CONSUMER_SEND_MSG_BACK: 36,
  END_TRANSACTION: 37,
  GET_CONSUMER_LIST_BY_GROUP: 38,
  /** Broker → client, oneway. */
  CHECK_TRANSACTION_STATE: 39,
  /** Broker → client, oneway: the group's membership changed; rebalance soon. */
  NOTIFY_CONSUMER_IDS_CHANGED: 40,
  LOCK_BATCH_MQ: 41,
  UNLOCK_BATCH_MQ: 42,
  /** Validates a subscription's filter (SQL92) before use. */
  CHECK_CLIENT_CONFIG: 46,
  GET_ROUTEINFO_BY_TOPIC: 105,
  GET_BROKER_CLUSTER_INFO: 106,
  /** Admin → broker: create or replace a subscription group (body: SubscriptionGroupConfig JSON). */
  UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: 200,
  /** Admin → broker: min/max offset and last store time of each queue of a topic (TopicStatsTable). */
  GET_TOPIC_STATS_INFO: 202,
  /** Admin → broker: a group's connected members and registration (ConsumerConnection). */
  GET_CONSUMER_CONNECTION_LIST: 203,
  GET_ALL_TOPIC_LIST_FROM_NAMESERVER: 206,
  /** Admin → broker: a group's broker and consumer offsets per queue (ConsumeStats). */
  GET_CONSUME_STATS: 208,
  /** Broker → client, oneway: move the group's offsets (body: ResetOffsetBody, fastjson object keys). */
  RESET_CONSUMER_CLIENT_OFFSET: 220,
  /** Client → broker (admin): reset a group's offsets of a topic to a timestamp (5.x: server-side by default). */
  INVOKE_BROKER_TO_RESET_OFFSET: 222,
  /** Broker → client, sync; deprecated. */
  GET_CONSUMER_STATUS_FROM_CLIENT: 221,
  /** Broker → client, sync (admin tools): reply with ConsumerRunningInfo JSON. */
  GET_CONSUMER_RUNNING_INFO: 307,
  /** Broker → client, sync (admin tools). */
  CONSUME_MESSAGE_DIRECTLY: 309,
  SEND_MESSAGE_V2: 310,
  SEND_BATCH_MESSAGE: 320,
  SEND_REPLY_MESSAGE: 324,
  SEND_REPLY_MESSAGE_V2: 325,
  PUSH_REPLY_MESSAGE_TO_CLIENT: 326,
  LITE_PULL_MESSAGE: 361,
} as const;
export type RequestCode = (typeof RequestCode)[keyof typeof RequestCode];

/** Response codes (RocketMQ's RemotingSysResponseCode 0–4 and ResponseCode). */
export const ResponseCode = {
  SUCCESS: 0,
  SYSTEM_ERROR: 1,
  SYSTEM_BUSY: 2,
  REQUEST_CODE_NOT_SUPPORTED: 3,
  TRANSACTION_FAILED: 4,
  FLUSH_DISK_TIMEOUT: 10,
  SLAVE_NOT_AVAILABLE: 11,
  FLUSH_SLAVE_TIMEOUT: 12,
  MESSAGE_ILLEGAL: 13,
  SERVICE_NOT_AVAILABLE: 14,
  VERSION_NOT_SUPPORTED: 15,
  NO_PERMISSION: 16,
  TOPIC_NOT_EXIST: 17,
  TOPIC_EXIST_ALREADY: 18,
  PULL_NOT_FOUND: 19,
  PULL_RETRY_IMMEDIATELY: 20,
  PULL_OFFSET_MOVED: 21,
  QUERY_NOT_FOUND: 22,
  SUBSCRIPTION_PARSE_FAILED: 23,
  SUBSCRIPTION_NOT_EXIST: 24,
  SUBSCRIPTION_NOT_LATEST: 25,
  SUBSCRIPTION_GROUP_NOT_EXIST: 26,
  FILTER_DATA_NOT_EXIST: 27,
  FILTER_DATA_NOT_LATEST: 28,
  INVALID_PARAMETER: 29,
  TRANSACTION_SHOULD_COMMIT: 200,
  TRANSACTION_SHOULD_ROLLBACK: 201,
  TRANSACTION_STATE_UNKNOW: 202,
  TRANSACTION_STATE_GROUP_WRONG: 203,
  NO_BUYER_ID: 204,
  NOT_IN_CURRENT_UNIT: 205,
  CONSUMER_NOT_ONLINE: 206,
  CONSUME_MSG_TIMEOUT: 207,
  NO_MESSAGE: 208,
  POLLING_FULL: 209,
  POLLING_TIMEOUT: 210,
  BROKER_NOT_EXIST: 211,
  BROKER_DISPATCH_NOT_COMPLETE: 212,
  BROADCAST_CONSUMPTION: 213,
  FLOW_CONTROL: 215,
  NOT_LEADER_FOR_QUEUE: 501,
  ILLEGAL_OPERATION: 604,
  GO_AWAY: 1500,
} as const;
export type ResponseCode = (typeof ResponseCode)[keyof typeof ResponseCode];

/**
 * RemotingCommand `flag` bits. Bit 0 tells a response from a request (never the opaque: the broker sends its own
 * requests with opaques from its own counter); bit 1 marks a oneway request, which never gets a reply.
 */
export const RemotingFlag = {
  RESPONSE: 1,
  ONEWAY: 2,
} as const;

/** High byte of the frame's second int: how the header is encoded. */
export const SerializeType = {
  JSON: 0,
  ROCKETMQ: 1,
} as const;
export type SerializeType = (typeof SerializeType)[keyof typeof SerializeType];

/** RocketMQ's LanguageCode: the JSON header carries the name, the ROCKETMQ header the byte. */
export const LanguageCode = {
  JAVA: 0,
  CPP: 1,
  DOTNET: 2,
  PYTHON: 3,
  DELPHI: 4,
  ERLANG: 5,
  RUBY: 6,
  OTHER: 7,
  HTTP: 8,
  GO: 9,
  PHP: 10,
  OMS: 11,
  RUST: 12,
  /** Only known to brokers ≥ 5.3.2; older ones decode it as null. */
  NODE_JS: 13,
} as const;
export type LanguageName = keyof typeof LanguageCode;

/** The language name of a ROCKETMQ-header byte, or undefined when unknown (Java's LanguageCode.valueOf gives null). */
export function languageName(code: number): LanguageName | undefined {
  for (const [name, value] of Object.entries(LanguageCode)) if (value === code) return name as LanguageName;
  return undefined;
}

/** `MQVersion.Version` ordinals worth naming. ≥ 401 makes the name server answer routes in standard JSON. */
export const MQVersion = {
  V3_4_9: 121,
  V4_5_2: 317,
  V4_9_4: 401,
  V5_3_1: 475,
  V5_3_3: 479,
} as const;

/** MessageSysFlag: the `sysFlag` stored with every message. */
export const MessageSysFlag = {
  COMPRESSED: 0x1,
  MULTI_TAGS: 0x2,
  TRANSACTION_NOT_TYPE: 0,
  TRANSACTION_PREPARED_TYPE: 0x4,
  TRANSACTION_COMMIT_TYPE: 0x8,
  TRANSACTION_ROLLBACK_TYPE: 0xc,
  BORNHOST_V6: 0x10,
  STOREHOSTADDRESS_V6: 0x20,
  NEED_UNWRAP: 0x40,
  INNER_BATCH: 0x80,
  COMPRESSION_LZ4_TYPE: 0x100,
  COMPRESSION_ZSTD_TYPE: 0x200,
  COMPRESSION_ZLIB_TYPE: 0x300,
  COMPRESSION_TYPE_MASK: 0x700,
} as const;

/** PullSysFlag: the `sysFlag` of a PULL_MESSAGE request. */
export const PullSysFlag = {
  COMMIT_OFFSET: 0x1,
  SUSPEND: 0x2,
  SUBSCRIPTION: 0x4,
  CLASS_FILTER: 0x8,
  LITE_PULL: 0x10,
} as const;

/** PermName: queue permission bits in route data. */
export const PermName = {
  PRIORITY: 8,
  READ: 4,
  WRITE: 2,
  INHERIT: 1,
} as const;

/** Magic codes of a stored message record (MessageDecoder): V2 has a 2-byte topic length. */
export const MessageMagic = {
  V1: -626843481, // 0xDAA320A7
  V2: -626843477, // 0xDAA320AB
} as const;

/**
 * The largest frame RocketMQ's NettyDecoder accepts, length prefix included (Netty's
 * LengthFieldBasedFrameDecoder(16777216, 0, 4, 0, 4) compares prefix + length against it).
 */
export const MAX_FRAME_LENGTH = 16 * 1024 * 1024;
