import type { AppConfig } from '@mailguard/config';
import type { ListOptions } from '@mailguard/lists';
import type { BullOptions } from '@mailguard/queue';

/** What the list stages need to know, from the configuration. */
export function listOptions(config: AppConfig): ListOptions {
  return {
    webhookRetryMs: config.checks.webhookRetrySeconds * 1000,
    cacheTtlSeconds: config.checks.cacheTtlSeconds,
  };
}

export function bullOptions(config: AppConfig): BullOptions {
  if (!config.redis.url) throw new Error('the distributed pipeline needs REDIS_URL');
  return { connection: { url: config.redis.url }, prefix: `${config.redis.keyPrefix}bull` };
}
