/**
 * Internals shared with mqkit's own plugins. Not a stable API for applications.
 */
export { ProcessQueue } from './consumer/queue/process-queue';
export type { QueueProgress } from './consumer/progress/consume-progress';
export type { TopicCounters } from './consumer/queue/consume-stats';
export { ByteBudget } from './consumer/queue/byte-budget';
export { ElasticPool, type PoolTask } from './consumer/delivery/elastic-pool';
export { ConsumedMessage } from './model/consumed-message';
export { isConsumerStatus } from './model/consumer-status';
export { coalesceMap } from './util/coalesce-map';
export { PluginHost } from './app/plugin-host';
export { ClientHost, type ClientHostOptions } from './app/client-host';
export { childController, untilAborted } from './util/abort';
export { Fifo } from './util/fifo';
export { deferred, sleep, toError, type Deferred } from './util/deferred';
export { buildClientId, localAddress } from './util/client-id';
export { checkAllocationInput } from './allocation/check-allocation-input';
export {
  IssueCollector,
  checkName,
  NAME_PATTERN,
  TOPIC_MAX_LENGTH,
  GROUP_MAX_LENGTH,
  parseConsumeTimestamp,
  formatConsumeTimestamp,
} from './options/option-checks';
export { buildDefinitions } from './definition/build-definitions';
export { exploreConsumers } from './definition/explore-consumers';
export { UniqKeyGenerator } from './producer/uniq-key';
export { RESERVED_PROPERTIES } from './model/system-properties';
export { FORBIDDEN_TOPICS } from './model/system-topics';
export { isSystemProperty, userProperties } from './model/system-properties';
export { copyProperties } from './util/copy-properties';
export { getOrCreate } from './util/get-or-create';
export {
  compressionFlags,
  compressionTypeOf,
  COMPRESSED_FLAG,
  COMPRESSION_TYPE_MASK,
  COMPRESSION_TYPES,
} from './codec/compression-type';
export {
  compressWith,
  DEFAULT_MAX_INFLATED_BYTES,
  inflateBody,
  prepareCompression,
  type InflatedBody,
} from './codec/body-codec';
