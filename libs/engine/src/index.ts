export { MemoryTtlStore, type DomainCacheStore } from './domain-cache';
export { createEngine, VerificationEngine, type DomainFacts, type EngineDeps, type EngineOptions, type Inspection, type ProbeOutcome, type StageOptions } from './engine';
export type { VerificationResult } from './result';
