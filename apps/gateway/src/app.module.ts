import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ConfigModule, type AppConfig } from '@mailguard/config';
import { listSweeps } from '@mailguard/lists';
import { QueueModule } from '@mailguard/queue';
import { AccountsController } from './accounts/accounts.controller';
import { ApiKeyGuard } from './auth/api-key.guard';
import { CreditsController } from './credits/credits.controller';
import { DocsController } from './docs/docs.controller';
import { HealthController } from './health/health.controller';
import { MetricsController } from './health/metrics.controller';
import { queueBoard } from './http/queue-board';
import { InfraModule, type Infrastructure } from './infra.module';
import { StageHandlersModule } from './stage-handlers.module';
import { FinderController } from './finder/finder.controller';
import { FinderService } from './finder/finder.service';
import { KeysController } from './keys/keys.controller';
import { McpController } from './mcp/mcp.controller';
import { McpTools } from './mcp/mcp.tools';
import { ListsController } from './lists/lists.controller';
import { ListsService } from './lists/lists.service';
import { ValidationController } from './validation/validation.controller';
import { VerificationService } from './validation/verification.service';
import { WidgetController } from './widget/widget.controller';
import { WidgetService } from './widget/widget.service';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, infra: Infrastructure): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        InfraModule.forRoot(infra),
        QueueModule.forRoot({ config, handlers: [StageHandlersModule] }),
        // The board exists only with queues to show (REDIS_URL) and a credential to guard it (ADMIN_TOKEN).
        ...(config.redis.url && config.admin.token ? queueBoard(config.admin.token) : []),
      ],
      controllers: [HealthController, MetricsController, DocsController, AccountsController, KeysController, CreditsController, ValidationController, ListsController, FinderController, WidgetController, McpController],
      providers: [
        VerificationService,
        FinderService,
        ListsService,
        WidgetService,
        McpTools,
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        // In-process, jobs lived in this process's memory: lists that were running when it stopped start again.
        ...(config.redis.url ? [] : listSweeps({ jobsLost: true })),
      ],
    };
  }
}
