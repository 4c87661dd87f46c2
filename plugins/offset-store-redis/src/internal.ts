/** Internals for other mqkit packages (the benchmark, tests). Not a stable API for applications. */
export {
  PERSIST_OFFSETS_LUA,
  PERSIST_OFFSETS_COMMAND,
  parsePersistOffsetsReply,
  type PersistOffsetsReply,
} from './persist-offsets.script';
export { parseStoredOffset } from './offset-keys';
export { PersistCoalescer } from './persist-coalescer';
export { OutageBackpressure } from './outage-backpressure';
export { createOffsetClient, reconnectDelay, type OffsetClient } from './redis-client.factory';
