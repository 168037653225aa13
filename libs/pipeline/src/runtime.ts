import type { AppConfig } from '@mailguard/config';
import type { ListOptions } from '@mailguard/lists';

/** What the list stages need to know, from the configuration. */
export function listOptions(config: AppConfig): ListOptions {
  return {
    cacheTtlSeconds: config.checks.cacheTtlSeconds,
  };
}
