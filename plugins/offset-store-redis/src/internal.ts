/** Internals for other mqkit packages (the benchmark, tests). Not a stable API for applications. */
export {
  PERSIST_OFFSETS_LUA,
  PERSIST_OFFSETS_COMMAND,
  parsePersistOffsetsReply,
  type PersistOffsetsReply,
} from './persist-offsets.script';
export { parseStoredOffset } from './offset-keys';
export { PersistCoalescer } from './persist-coalescer';
export { UnpersistedProgress } from './unpersisted-progress';
export { createOffsetClient, reconnectDelay, type OffsetClient } from './redis-client.factory';
