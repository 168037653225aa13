import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthChecks, type Readiness } from '@mailguard/health';
import { Public } from '../auth/access';

/** Liveness says the process runs; readiness says it can serve (Postgres, Redis and the queues answer). */
@ApiExcludeController()
@Controller('health')
@Public()
export class HealthController {
  constructor(private readonly health: HealthChecks) {}

  @Get('live')
  live(): { status: 'ok' } {
    return this.health.live();
  }

  @Get('ready')
  ready(): Promise<Readiness> {
    return this.health.ready();
  }
}
