export {
  answerJson,
  MemoryResultCache,
  RedisJsonStore,
  RedisResultCache,
  resultKey,
  type ResultCache,
} from './result-cache';
