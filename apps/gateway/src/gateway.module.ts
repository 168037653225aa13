import { Inject, Module, type BeforeApplicationShutdown, type DynamicModule } from '@nestjs/common';
import { CoreModule, LOGGER } from '@mailguard/core';
import type { AppConfig } from '@mailguard/config';
import type { Logger } from '@mailguard/logger';
import { AccountsModule } from './accounts/accounts.module';
import { AdminModule } from './admin/admin.module';
import { AuthModule } from './auth/auth.module';
import { CreditsModule } from './credits/credits.module';
import { DocsModule } from './docs/docs.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { FinderModule } from './finder/finder.module';
import { HealthModule } from './health/health.module';
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
 * the imports, importers first: the HTTP server, then the pipeline and its sweeps, the key-change
 * listener, the database, and Redis last.
 */
@Module({})
export class GatewayModule implements BeforeApplicationShutdown {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

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
    };
  }

  beforeApplicationShutdown(signal?: string): void {
    this.logger.info({ signal }, 'shutting down');
  }
}
