export {
  connectRedis,
  createRedis,
  isRedisConnectionError,
  luaScript,
  pingRedis,
  RedisUnavailableError,
  runScript,
  type LuaScript,
} from './redis';
