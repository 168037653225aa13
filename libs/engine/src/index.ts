export { MemoryDomainCache, type DomainCacheStore } from './domain-cache';
export { createEngine, VerificationEngine, type DomainFacts, type EngineDeps, type EngineOptions } from './engine';
export type { VerificationResult } from './result';
