export { connectRedis, createRedis, isRedisConnectionError, pingRedis, RedisUnavailableError } from './redis';
