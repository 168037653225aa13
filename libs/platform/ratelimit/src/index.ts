export { MemoryDailyQuota, RedisDailyQuota, type DailyQuota, type QuotaDecision } from './daily-quota';
export { MemoryRateLimiter, RedisRateLimiter, type RateDecision, type RateLimiter } from './rate-limiter';
export { RedisSessionGate } from './session-gate';
export { RedisEgressBlocks } from './egress-blocks';
