import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, type AppConfig } from '@mailguard/config';
import type { Logger } from '@mailguard/logger';
import { LoggingModule } from './logging.module';

export interface CoreOptions {
  /** Loaded and validated once in main(), where a bad variable is reported in one line. */
  config: AppConfig;
  logger: Logger;
  /** The process's name: "gateway", "dns-worker"… */
  process: string;
}

/**
 * What every module of a process may inject without importing it: the configuration and the
 * logger (the only global modules). The rest (RedisModule, MetricsModule, ResultCacheModule, the
 * stores…) is imported by each module that uses it.
 */
@Module({})
export class CoreModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot(options.config),
        LoggingModule.forRoot({ logger: options.logger, process: options.process }),
      ],
    };
  }
}
