import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { Database } from '@mailguard/db';
import { WebhookOutbox, WebhookSender } from '@mailguard/lists';
import type { Outbound } from '@mailguard/net';
import { DatabaseModule } from './database.module';
import { EngineModule } from './engine.module';
import { OUTBOUND } from './tokens';

/**
 * The webhook outbox and its sender, in the processes that run the lists queue (list-workers, or
 * the one process): deliveries are sent through the outbound policy that judged their URLs.
 */
@Module({
  imports: [DatabaseModule, EngineModule],
  providers: [
    {
      provide: WebhookOutbox,
      inject: [Database, OUTBOUND, APP_CONFIG],
      useFactory: (database: Database, outbound: Outbound, config: AppConfig) =>
        new WebhookOutbox(() => database.dataSource, outbound, config.checks.webhookRetrySeconds * 1000),
    },
    WebhookSender,
  ],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
