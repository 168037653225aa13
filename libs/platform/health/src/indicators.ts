import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { Redis } from 'ioredis';
import { DatabaseUnavailableError, type Database } from '@mailguard/db';
import { pingRedis, RedisUnavailableError } from '@mailguard/redis';

/** Job queues as readiness sees them: BullMQ (asked through Redis) or in-process (always there). */
export interface QueueProbe {
  ping(): Promise<void>;
}

/**
 * A down indicator keeps the error its dependency raised (DatabaseUnavailableError,
 * RedisUnavailableError), so that a caller can answer with that error's status and body.
 */
export interface DownDetail {
  status: 'down';
  message: string;
  error: Error;
}

/** Postgres answers a `SELECT 1` through the process's DataSource. */
@Injectable()
export class PostgresHealthIndicator {
  constructor(private readonly indicators: HealthIndicatorService) {}

  async pingCheck<const Key extends string>(key: Key, database: Database) {
    const check = this.indicators.check(key);
    try {
      await database.ping();
      return check.up({ mode: database.mode });
    } catch (error) {
      const unavailable = error instanceof DatabaseUnavailableError ? error : new DatabaseUnavailableError(error);
      return check.down({ message: unavailable.message, error: unavailable });
    }
  }
}

/** Redis answers PING; without REDIS_URL (null) the process keeps its state in memory, always up. */
@Injectable()
export class RedisHealthIndicator {
  constructor(private readonly indicators: HealthIndicatorService) {}

  async pingCheck<const Key extends string>(key: Key, redis: Redis | null) {
    const check = this.indicators.check(key);
    if (!redis) return check.up({ mode: 'in-process' as const });
    try {
      await pingRedis(redis);
      return check.up({ mode: 'redis' as const });
    } catch (error) {
      const unavailable = error instanceof RedisUnavailableError ? error : new RedisUnavailableError(error);
      return check.down({ message: unavailable.message, error: unavailable });
    }
  }
}

/** The job queues answer: BullMQ's are read through their own Redis connection. */
@Injectable()
export class QueueHealthIndicator {
  constructor(private readonly indicators: HealthIndicatorService) {}

  async pingCheck<const Key extends string>(key: Key, queues: QueueProbe) {
    const check = this.indicators.check(key);
    try {
      await queues.ping();
      return check.up();
    } catch (error) {
      const unavailable = new RedisUnavailableError(error);
      return check.down({ message: unavailable.message, error: unavailable });
    }
  }
}
