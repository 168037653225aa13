import { Module, type DynamicModule } from '@nestjs/common';
import { StoresModule } from '@mailguard/core';
import { AuthModule } from '../auth/auth.module';
import { ValidationModule } from '../validation/validation.module';
import { WidgetController } from './widget.controller';
import { WidgetService } from './widget.service';
import { pipelineFeature } from '../pipeline/pipeline.module';

/** The embeddable widget (#11–#14): its script, its checks and an account's widget settings. */
@Module({
  imports: [StoresModule, AuthModule],
  controllers: [WidgetController],
  providers: [WidgetService],
})
export class WidgetModule {
  /** With the gateway's job transport, which the checks need. */
  static withPipeline(pipeline: DynamicModule): DynamicModule {
    return pipelineFeature(pipeline, WidgetModule, [ValidationModule.withPipeline(pipeline)]);
  }
}
