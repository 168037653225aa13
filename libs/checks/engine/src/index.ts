export { MemoryTtlStore, type DomainCacheStore } from './domain-cache';
export {
  createEngine,
  VerificationEngine,
  type DomainFacts,
  type EngineDeps,
  type EngineOptions,
  type Inspection,
  type Prober,
  type ProbeOutcome,
  type ProbeRequest,
  type StageOptions,
} from './engine';
export { greylistRetry, MAX_GREYLIST_RETRIES, type GreylistRetry, type GreylistState } from './greylist';
export type { VerificationResult } from './result';
/** Injection token of the process's verification engine (`VerificationEngine`), provided by EngineModule of libs/composition/core. */
export const ENGINE = Symbol('ENGINE');
