import type { Redis } from 'ioredis';
import { RedisJsonStore } from '@mailguard/cache';
import type { AppConfig } from '@mailguard/config';
import { createEngine, type DomainFacts, type VerificationEngine } from '@mailguard/engine';
import type { Logger } from '@mailguard/logger';
import { outboundGet } from '@mailguard/lookups';
import type { Metrics } from '@mailguard/metrics';
import { createOutbound, type Outbound } from '@mailguard/net';
import { RedisEgressBlocks, RedisSessionGate } from '@mailguard/ratelimit';
import { buildEgress, EgressPool, MemoryEgressBlocks, MemorySessionGate, type SessionGate } from '@mailguard/smtp';

/** The per-MX session cap: shared by every prober process through Redis, else this process's own. */
export function buildGate(config: AppConfig, redis: Redis | null): SessionGate {
  if (!redis) return new MemorySessionGate(config.smtp.mxConcurrency);
  return new RedisSessionGate(redis, config.redis.keyPrefix, config.smtp.mxConcurrency);
}

/** The egresses and their blocks: known to every prober (and the gateway's readiness) through Redis, else this process's. */
export function buildEgressPool(config: AppConfig, redis: Redis | null): EgressPool {
  const store = redis ? new RedisEgressBlocks(redis, config.redis.keyPrefix) : new MemoryEgressBlocks();
  return new EgressPool(config.prober.egress.map(buildEgress), store, config.prober.blockSeconds * 1000);
}

/**
 * The engine of a process: with Redis, the domain cache is shared by every process too (what one
 * prober learns about a domain's catch-all, the others know).
 */
export function buildEngine(
  config: AppConfig,
  redis: Redis | null,
  gate = buildGate(config, redis),
  outbound: Outbound = createOutbound(config),
  egress = buildEgressPool(config, redis),
): VerificationEngine {
  const domainCaches = redis
    ? {
        domainCache: new RedisJsonStore<DomainFacts>(redis, `${config.redis.keyPrefix}domain:`),
        catchAllCache: new RedisJsonStore<boolean>(redis, `${config.redis.keyPrefix}catchall:`),
      }
    : {};
  return createEngine(config, { gate, egress, http: outboundGet(outbound), ...domainCaches });
}

/** What operators see of a per-MX gate: gauges on /metrics, and a warning for every lease that expired. */
export function superviseGate(gate: SessionGate, metrics: Metrics, logger: Logger): void {
  metrics.watchGate(gate);
  gate.observe({
    expired: (host) => logger.warn({ host }, 'an MX slot lease expired: a session never gave its slot back'),
  });
}
