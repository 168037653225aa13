import { Module, type DynamicModule } from '@nestjs/common';
import { EngineModule, MetricsModule, ResultCacheModule, StoresModule } from '@mailguard/core';
import { ValidationController } from './validation.controller';
import { VerificationService } from './verification.service';
import { pipelineFeature } from '../pipeline/pipeline.module';

/** Single and batch checks (#1, #2) and delivery feedback (#3); the checks serve sign-up, the widget and MCP too. */
@Module({
  imports: [StoresModule, EngineModule, ResultCacheModule, MetricsModule],
  controllers: [ValidationController],
  providers: [VerificationService],
  exports: [VerificationService],
})
export class ValidationModule {
  /** With the gateway's job transport (PipelineModule.forRoot). */
  static withPipeline(pipeline: DynamicModule): DynamicModule {
    return pipelineFeature(pipeline, ValidationModule, [pipeline]);
  }
}
