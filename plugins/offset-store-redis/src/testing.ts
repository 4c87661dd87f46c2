/** The test kit: real Redis servers and clusters for tests, started from PATH and stopped by pid. */
export { startRedisServer, type RedisServerHandle, type StartRedisServerOptions } from './testing/redis-server.harness';
export {
  startRedisCluster,
  type RedisClusterHandle,
  type StartRedisClusterOptions,
} from './testing/redis-cluster.harness';
export { commandCalls, redisCall, redisInfo, type RedisAuth } from './testing/redis-call';
export { REDIS_INSTALL_HINT } from './testing/redis-process';
