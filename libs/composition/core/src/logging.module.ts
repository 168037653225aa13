import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from '@mailguard/logger';
import { LOGGER, PROCESS_NAME } from './tokens';

/**
 * The process's logger and name, injectable everywhere (global, as the configuration is): every
 * module logs, and the name only says which process this is.
 */
@Global()
@Module({})
export class LoggingModule {
  static forRoot(options: { logger: Logger; process: string }): DynamicModule {
    return {
      module: LoggingModule,
      providers: [
        { provide: LOGGER, useValue: options.logger },
        { provide: PROCESS_NAME, useValue: options.process },
      ],
      exports: [LOGGER, PROCESS_NAME],
    };
  }
}
