export { MemoryResultCache, RedisResultCache, type ResultCache } from './result-cache';
