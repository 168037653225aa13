import {
  Catch,
  Controller,
  Get,
  Inject,
  Injectable,
  NotFoundException,
  Res,
  ServiceUnavailableException,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { Request, Response } from 'express';
import { Metrics } from '@mailguard/metrics';

/**
 * Whether the worker process's BullMQ worker runs. Not the processor itself: @nestjs/bullmq starts a
 * BullMQ worker for every provider whose value is a processor, so an alias of it would start a second
 * one on the same queue (twice the jobs at once, and one of them not waited for at shutdown).
 */
export interface WorkerLiveness {
  isRunning(): boolean;
}
export const WORKER_LIVENESS = Symbol('WORKER_LIVENESS');

/** Liveness of a worker: its BullMQ worker takes jobs. */
@Injectable()
export class WorkerHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(WORKER_LIVENESS) private readonly worker: WorkerLiveness,
  ) {}

  isRunning(key: string) {
    const indicator = this.indicators.check(key);
    return this.worker.isRunning() ? indicator.up() : indicator.down('the worker is not running');
  }
}

/** `GET /health/live` and `GET /metrics` of a worker, on its own port (WORKER_PORT variables). */
@Controller()
export class WorkerHttpController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly worker: WorkerHealthIndicator,
    private readonly metrics: Metrics,
  ) {}

  @Get('health/live')
  async live(): Promise<{ status: 'ok' }> {
    // Terminus answers a failed check with its own 503; the worker's answer keeps the service's shape.
    const healthy = await this.health.check([() => this.worker.isRunning('worker')]).then(
      () => true,
      () => false,
    );
    if (!healthy) throw new ServiceUnavailableException({ error: 'the worker is not running' });
    return { status: 'ok' };
  }

  @Get('metrics')
  async scrape(@Res() res: Response): Promise<void> {
    res.setHeader('Content-Type', this.metrics.contentType);
    res.send(await this.metrics.text());
  }
}

/** An unknown route is answered in the service's `{ error, code }` shape, as the gateway answers it. */
@Catch(NotFoundException)
export class NoRouteFilter implements ExceptionFilter {
  catch(_exception: NotFoundException, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    host
      .switchToHttp()
      .getResponse<Response>()
      .status(404)
      .json({ error: `No route for ${req.method} ${req.originalUrl}`, code: 'not_found' });
  }
}
