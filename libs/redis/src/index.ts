export { createRedis, pingRedis, RedisUnavailableError } from './redis';
