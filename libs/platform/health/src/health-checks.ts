import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, type HealthCheckResult, type HealthIndicatorFunction } from '@nestjs/terminus';
import type { Redis } from 'ioredis';
import type { Database } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import type { ProberReadiness } from '@mailguard/prober';
import {
  PostgresHealthIndicator,
  QueueHealthIndicator,
  RedisHealthIndicator,
  type DownDetail,
  type QueueProbe,
} from './indicators';

/** What a process depends on to serve; each process passes its own. */
export interface HealthTargets {
  /** null: a process that needs no database (some workers). */
  database: Database | null;
  /** null: no REDIS_URL, cache and limits in memory. */
  redis: Redis | null;
  queues: QueueProbe;
  /** The prober's standing (docs/production.md), for a process that answers for it (the gateway); it never makes readiness fail. */
  prober?: { readiness(): Promise<ProberReadiness> };
}

export const HEALTH_TARGETS = Symbol('HEALTH_TARGETS');

/** The readiness body of docs/api.md: which Postgres and which Redis the process serves with. */
export interface Readiness {
  status: 'ok';
  database?: Database['mode'];
  redis: 'redis' | 'in-process';
  /** Whether mail servers talk to the prober: informative, a blocked prober still serves (its answers say unknown). */
  prober?: ProberReadiness;
}

/** Readiness asked while the application drains or closes (`drain`, terminus's shutting-down state). */
export class ShuttingDownError extends AppError {
  constructor() {
    super('unavailable', 'The service is shutting down; retry shortly');
    this.name = 'ShuttingDownError';
  }
}

/**
 * Liveness and readiness for any MailGuard process, through terminus's HealthCheckService. A
 * failed readiness throws the error of the first dependency down (Postgres, then Redis, then the
 * queues), whose status and body the HTTP layer already knows (503 `{ error, code }`).
 */
@Injectable()
export class HealthChecks {
  constructor(
    private readonly health: HealthCheckService,
    private readonly postgres: PostgresHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly queues: QueueHealthIndicator,
    @Inject(HEALTH_TARGETS) private readonly targets: HealthTargets,
  ) {}

  private draining = false;

  /**
   * The process is shutting down but still serves (the gateway's pre-stop delay and drain):
   * readiness answers 503 from now on, so that no new traffic is sent its way.
   */
  drain(): void {
    this.draining = true;
  }

  /** The process runs and answers: nothing to ask of its dependencies. */
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  async ready(): Promise<Readiness> {
    if (this.draining) throw new ShuttingDownError();
    const { database, redis, queues, prober } = this.targets;
    const connections = await this.check([
      ...(database ? [() => this.postgres.pingCheck('database', database)] : []),
      () => this.redis.pingCheck('redis', redis),
    ]);
    // Only once Redis answers: BullMQ holds a command while disconnected instead of failing it.
    await this.check([() => this.queues.pingCheck('queues', queues)]);
    const mode = (key: string) => (connections.details[key] as { mode?: string } | undefined)?.mode;
    return {
      status: 'ok',
      ...(database && { database: mode('database') as Database['mode'] }),
      redis: mode('redis') as Readiness['redis'],
      ...(prober && { prober: await prober.readiness() }),
    };
  }

  private async check(indicators: HealthIndicatorFunction[]): Promise<HealthCheckResult> {
    try {
      return await this.health.check(indicators);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const result = error.getResponse() as HealthCheckResult;
      if (result.status === 'shutting_down') throw new ShuttingDownError();
      // Indicators in the order they were given: the first one down names the answer.
      const down = Object.values(result.details).find((detail) => detail.status === 'down') as DownDetail | undefined;
      throw down?.error ?? error;
    }
  }
}
