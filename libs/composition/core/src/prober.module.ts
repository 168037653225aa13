import { Inject, Module, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import type { Logger } from '@mailguard/logger';
import { Metrics } from '@mailguard/metrics';
import {
  MemoryReportStore,
  ProberMonitor,
  RedisReportStore,
  reportText,
  selfCheck,
  type DoctorReport,
} from '@mailguard/prober';
import type { EgressPool } from '@mailguard/smtp';
import { EngineModule } from './engine.module';
import { MetricsModule } from './metrics.module';
import { RedisModule } from './redis.module';
import { EGRESS, LOGGER, PROBER, PROCESS_NAME, REDIS } from './tokens';

/** Whether this process opens SMTP connections: the smtp-workers, or any process without Redis (one process does it all). */
export function probesHere(config: AppConfig, process: string): boolean {
  return process === 'smtp-worker' || config.redis.url === null;
}

function logReport(logger: Logger, report: DoctorReport): void {
  const failing = report.egress.flatMap((egress) =>
    egress.checks
      .filter((check) => check.status === 'fail' || check.status === 'warn')
      .map((check) => ({
        egress: egress.id,
        check: check.name,
        status: check.status,
        detail: check.detail,
        fix: check.fix,
      })),
  );
  const fields = { ok: report.ok, egress: report.egress.map(({ id, publicIp }) => ({ id, publicIp })), failing };
  if (report.ok) logger.info(fields, 'prober self-check: ready');
  else
    logger.warn(
      { ...fields, report: reportText(report) },
      'prober self-check: NOT READY (npx mailguard doctor says what to do)',
    );
}

/**
 * The prober's standing (docs/production.md): in a process that probes, a self-check at start-up and every
 * PROBER_CHECK_MINUTES, logged and kept (in Redis for the gateway to show); everywhere, readiness's
 * `prober` section and its metrics.
 */
@Module({
  imports: [EngineModule, RedisModule, MetricsModule],
  providers: [
    {
      provide: PROBER,
      inject: [APP_CONFIG, REDIS, EGRESS, LOGGER, PROCESS_NAME, Metrics],
      useFactory: (
        config: AppConfig,
        redis: Redis | null,
        egress: EgressPool,
        logger: Logger,
        process: string,
        metrics: Metrics,
      ) => {
        const minutes = config.prober.checkMinutes;
        const monitor = new ProberMonitor({
          check: (signal) => selfCheck(config, egress.egresses, signal),
          store: redis ? new RedisReportStore(redis, config.redis.keyPrefix) : new MemoryReportStore(),
          pool: egress,
          everyMs: minutes > 0 ? minutes * 60_000 : null,
          onReport: (report) => logReport(logger, report),
          onError: (error) =>
            logger.warn(
              { err: error instanceof Error ? error.message : String(error) },
              'prober self-check failed to run',
            ),
        });
        egress.observe({
          blocked: (block) =>
            logger.warn(
              {
                egress: block.egress,
                provider: block.key,
                reason: block.reason,
                until: new Date(block.until).toISOString(),
              },
              'an egress is refused by a provider: probes there go through another egress until the back-off ends',
            ),
        });
        if (probesHere(config, process)) metrics.watchProber(monitor);
        return monitor;
      },
    },
  ],
  exports: [PROBER],
})
export class ProberModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(PROBER) private readonly monitor: ProberMonitor,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PROCESS_NAME) private readonly process: string,
  ) {}

  /** In the background: a process serves while its first self-check waits on the network. */
  onApplicationBootstrap(): void {
    if (probesHere(this.config, this.process)) this.monitor.start();
  }

  beforeApplicationShutdown(): void {
    this.monitor.stop();
  }
}
