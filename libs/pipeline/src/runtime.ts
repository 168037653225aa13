import type { Redis } from 'ioredis';
import { RedisJsonStore } from '@mailguard/cache';
import type { AppConfig } from '@mailguard/config';
import { createEngine, type DomainFacts, type VerificationEngine } from '@mailguard/engine';
import type { ListOptions } from '@mailguard/lists';
import type { Logger } from '@mailguard/logger';
import type { Metrics } from '@mailguard/metrics';
import { RedisSessionGate } from '@mailguard/ratelimit';
import type { SessionGate } from '@mailguard/smtp';

/**
 * The engine of a process: with Redis, the domain cache and the per-MX session cap are shared by
 * every process (what one prober learns about a domain's catch-all, the others know).
 */
export function buildEngine(config: AppConfig, redis: Redis | null, gate: RedisSessionGate | null = redis && buildGate(config, redis)): VerificationEngine {
  if (!redis || !gate) return createEngine(config);
  return createEngine(config, { domainCache: new RedisJsonStore<DomainFacts>(redis, `${config.redis.keyPrefix}domain:`), gate });
}

/** The per-MX session cap shared by every prober process. */
export function buildGate(config: AppConfig, redis: Redis): RedisSessionGate {
  return new RedisSessionGate(redis, config.redis.keyPrefix, config.smtp.mxConcurrency);
}

/** What operators see of a per-MX gate: gauges on /metrics, and a warning for every lease that expired. */
export function superviseGate(gate: SessionGate, metrics: Metrics, logger: Logger): void {
  metrics.watchGate(gate);
  gate.observe({ expired: (host) => logger.warn({ host }, 'an MX slot lease expired: a session never gave its slot back') });
}

/** What the list stages need to know, from the configuration. */
export function listOptions(config: AppConfig): ListOptions {
  return {
    greylistRetryMs: config.checks.greylistRetrySeconds * 1000,
    webhookRetryMs: config.checks.webhookRetrySeconds * 1000,
    cacheTtlSeconds: config.checks.cacheTtlSeconds,
  };
}
