import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Module, type BeforeApplicationShutdown, type DynamicModule } from '@nestjs/common';
import { CoreModule, LOGGER } from '@mailguard/core';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import type { Logger } from '@mailguard/logger';
import { AccountsModule } from './accounts/accounts.module';
import { AdminModule } from './admin/admin.module';
import { AuthModule } from './auth/auth.module';
import { CreditsModule } from './credits/credits.module';
import { DocsModule } from './docs/docs.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { FinderModule } from './finder/finder.module';
import { HealthModule } from './health/health.module';
import { HttpDrain } from './http/drain';
import { KeysModule } from './keys/keys.module';
import { ListsModule } from './lists/lists.module';
import { LoginsModule } from './logins/logins.module';
import { McpModule } from './mcp/mcp.module';
import { PipelineModule } from './pipeline/pipeline.module';
import { RetentionModule } from './retention/retention.module';
import { ValidationModule } from './validation/validation.module';
import { WidgetModule } from './widget/widget.module';

/**
 * The gateway: the shared composition and one module per feature. Nest ends it in the order of
 * the imports, importers first: the HTTP server (drained first, by this root module's own hook,
 * while everything its requests use is open), then the pipeline and its sweeps, the key-change
 * listener, the database, and Redis last.
 */
@Module({})
export class GatewayModule implements BeforeApplicationShutdown {
  constructor(
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly http: HttpDrain,
  ) {}

  static forRoot(options: { config: AppConfig; logger: Logger }): DynamicModule {
    const pipeline = PipelineModule.forRoot(options.config);
    return {
      module: GatewayModule,
      imports: [
        CoreModule.forRoot({ ...options, process: 'gateway' }),
        pipeline,
        AuthModule,
        HealthModule.withPipeline(pipeline),
        DocsModule,
        DashboardModule,
        AccountsModule.withPipeline(pipeline),
        KeysModule,
        LoginsModule,
        CreditsModule,
        ValidationModule.withPipeline(pipeline),
        ListsModule.withPipeline(pipeline),
        FinderModule.withPipeline(pipeline),
        WidgetModule.withPipeline(pipeline),
        McpModule.withPipeline(pipeline),
        RetentionModule,
        // The operator console exists only with its credential: without ADMIN_TOKEN its routes are unknown (404).
        ...(options.config.admin.token ? [AdminModule.withPipeline(pipeline)] : []),
      ],
      providers: [HttpDrain],
    };
  }

  /**
   * SIGTERM is the orchestrator's: it is still routing requests here for a while (SHUTDOWN_DELAY_MS).
   * Any other end (SIGINT, `close()`) drains at once. Either way every request in flight is answered.
   */
  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.logger.info({ signal }, 'shutting down');
    this.http.begin();
    const delayMs = signal === 'SIGTERM' ? this.config.http.shutdownDelayMs : 0;
    if (delayMs > 0) await sleep(delayMs);
    await this.http.finish();
  }
}
