import { Module, type DynamicModule } from '@nestjs/common';
import { EngineModule, StoresModule } from '@mailguard/core';
import { ListsController } from './lists.controller';
import { ListsService } from './lists.service';
import { UploadStaging } from './upload';
import { pipelineFeature } from '../pipeline/pipeline.module';

/** Bulk lists (#4–#8), for REST and the MCP tools. */
@Module({
  imports: [StoresModule, EngineModule],
  controllers: [ListsController],
  providers: [ListsService, UploadStaging],
  exports: [ListsService, UploadStaging],
})
export class ListsModule {
  /** With the gateway's job transport (PipelineModule.forRoot). */
  static withPipeline(pipeline: DynamicModule): DynamicModule {
    return pipelineFeature(pipeline, ListsModule, [pipeline]);
  }
}
