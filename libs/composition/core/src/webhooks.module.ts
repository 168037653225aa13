import { Logger, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { Database } from '@mailguard/db';
import { WebhookOutbox, WebhookSender, type AttemptObserver } from '@mailguard/lists';
import { Metrics } from '@mailguard/metrics';
import type { Outbound } from '@mailguard/net';
import { DatabaseModule } from './database.module';
import { EngineModule } from './engine.module';
import { MetricsModule } from './metrics.module';
import { OUTBOUND } from './tokens';

/**
 * The webhook outbox and its sender, in the processes that run the lists queue (list-workers, or
 * the one process): deliveries are sent through the outbound policy that judged their URLs.
 */
@Module({
  imports: [DatabaseModule, EngineModule, MetricsModule],
  providers: [
    {
      provide: WebhookOutbox,
      inject: [Database, OUTBOUND, APP_CONFIG, Metrics],
      useFactory: (database: Database, outbound: Outbound, config: AppConfig, metrics: Metrics) => {
        const logger = new Logger('Webhooks');
        const observe: AttemptObserver = (outcome, { listId, error }) => {
          metrics.webhookAttempts.inc({ outcome });
          if (outcome === 'failed') logger.warn(`list ${listId}: its webhook failed for good (${error})`);
        };
        return new WebhookOutbox(
          () => database.dataSource,
          outbound,
          config.checks.webhookRetrySeconds * 1000,
          observe,
        );
      },
    },
    WebhookSender,
  ],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
