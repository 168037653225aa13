import { DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from './config';

/** Injection token for the validated configuration. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/** Makes the configuration validated in main() injectable everywhere; it is never read twice. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}
