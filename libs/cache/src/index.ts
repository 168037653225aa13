export { MemoryResultCache, RedisJsonStore, RedisResultCache, resultKey, type ResultCache } from './result-cache';
