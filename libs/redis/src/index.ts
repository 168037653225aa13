export { createRedis, isRedisConnectionError, pingRedis, RedisUnavailableError } from './redis';
