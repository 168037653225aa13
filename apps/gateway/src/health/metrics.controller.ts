import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Metrics } from '@mailguard/metrics';
import { Public } from '../auth/access';
import { QUEUES } from '@mailguard/queue';
import type { Queue } from 'bullmq';

/** `GET /metrics`: Prometheus text, outside `/v1`. Queue depths are read at scrape time. */
@ApiExcludeController()
@Controller('metrics')
@Public()
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    @Inject(QUEUES) private readonly queues: Queue[],
  ) {}

  @Get()
  async scrape(@Res() res: Response): Promise<void> {
    await Promise.all(
      this.queues.map(async (queue) => {
        const counts = await queue.getJobCounts('wait', 'delayed', 'active').catch(() => null);
        for (const [state, count] of Object.entries(counts ?? {}))
          this.metrics.queueDepth.set({ queue: queue.name, state }, count);
      }),
    );
    res.setHeader('Content-Type', this.metrics.contentType);
    res.send(await this.metrics.text());
  }
}
