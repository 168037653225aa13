import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, type AppConfig } from '@mailguard/config';
import { HealthController } from './health/health.controller';
import { InfraModule, type Infrastructure } from './infra.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, infra: Infrastructure): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), InfraModule.forRoot(infra)],
      controllers: [HealthController],
    };
  }
}
