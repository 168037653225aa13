import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Redis } from 'ioredis';
import { REDIS } from '@mailguard/core';
import { Database } from '@mailguard/db';
import { pingRedis, RedisUnavailableError } from '@mailguard/redis';
import { Public } from '../auth/access';
import { CHECK_PIPELINE, type CheckPipeline } from '@mailguard/queue';

/** Liveness says the process runs; readiness says it can serve (Postgres and Redis answer). */
@ApiExcludeController()
@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly database: Database,
    @Inject(REDIS) private readonly redis: Redis | null,
    @Inject(CHECK_PIPELINE) private readonly pipeline: CheckPipeline,
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(): Promise<{ status: 'ok'; database: string; redis: string }> {
    await this.database.ping();
    if (this.redis) await pingRedis(this.redis);
    await this.pipeline.ping().catch((error: unknown) => {
      throw new RedisUnavailableError(error);
    });
    return { status: 'ok', database: this.database.mode, redis: this.redis ? 'redis' : 'in-process' };
  }
}
