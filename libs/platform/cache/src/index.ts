export {
  answerJson,
  MemoryResultCache,
  RedisJsonStore,
  RedisResultCache,
  resultKey,
  type ResultCache,
} from './result-cache';
/** Injection token of the result cache (`ResultCache`): Redis when configured, else this process's memory (libs/composition/core). */
export const RESULT_CACHE = Symbol('RESULT_CACHE');
