import { Module, type DynamicModule } from '@nestjs/common';
import { EngineModule, StoresModule } from '@mailguard/core';
import { FinderController } from './finder.controller';
import { FinderService } from './finder.service';
import { pipelineFeature } from '../pipeline/pipeline.module';

/** The email finder (#9) and domain insight (#10), for REST and the MCP tools. */
@Module({
  imports: [StoresModule, EngineModule],
  controllers: [FinderController],
  providers: [FinderService],
  exports: [FinderService],
})
export class FinderModule {
  /** With the gateway's job transport (PipelineModule.forRoot). */
  static withPipeline(pipeline: DynamicModule): DynamicModule {
    return pipelineFeature(pipeline, FinderModule, [pipeline]);
  }
}
