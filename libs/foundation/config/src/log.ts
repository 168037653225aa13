import { createHash } from 'node:crypto';
import type { EnvReader } from './env-reader';

export interface LogConfig {
  level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Keys the short hash that stands for an address's local part in every log line (`h:3f9a1c2b@example.com`):
   * LOG_HASH_KEY, else derived from what every process of one deployment shares (REDIS_URL, else
   * DATABASE_URL, and REDIS_PREFIX), so the same address reads the same in the gateway's and the workers' logs.
   */
  hashKey: string;
  /** Values no log line may show, wherever they appear: ADMIN_TOKEN, METRICS_TOKEN, LOG_HASH_KEY. */
  secrets: string[];
}

const LOG_LEVELS: LogConfig['level'][] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** A key short enough to guess would let anyone with the logs hash candidate addresses. */
const MIN_HASH_KEY_LENGTH = 16;
/** Shorter secrets are not searched for in log lines: they would blank ordinary words. */
const MIN_SECRET_LENGTH = 8;

/** What every process of one deployment is configured with alike (the hash key's fallback). */
export interface DeploymentIdentity {
  redisUrl: string | null;
  databaseUrl: string | null;
  keyPrefix: string;
}

/** LOG_LEVEL and LOG_HASH_KEY, and the secrets of the configuration the logger keeps out of its lines. */
export function readLogConfig(
  read: EnvReader,
  deployment: DeploymentIdentity,
  secrets: Array<string | null>,
): LogConfig {
  const level = read.string('LOG_LEVEL', 'info').toLowerCase() as LogConfig['level'];
  if (!LOG_LEVELS.includes(level)) {
    read.problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(level)})`);
  }
  const key = read.string('LOG_HASH_KEY', null);
  if (key !== null && key.length < MIN_HASH_KEY_LENGTH) {
    // Never echoed: it is a secret.
    read.problems.push(`LOG_HASH_KEY must be at least ${MIN_HASH_KEY_LENGTH} characters`);
  }
  const derived = createHash('sha256')
    .update(
      ['mailguard log hash key', deployment.redisUrl ?? deployment.databaseUrl ?? '', deployment.keyPrefix].join('\0'),
    )
    .digest('hex');
  return {
    level,
    hashKey: key ?? derived,
    secrets: [...secrets, key].filter((secret): secret is string => (secret?.length ?? 0) >= MIN_SECRET_LENGTH),
  };
}
