import { Module } from '@nestjs/common';
import { EngineModule, StoresModule } from '@mailguard/core';
import { ListsController } from './lists.controller';
import { ListsService } from './lists.service';
import { UploadStaging } from './upload';

/** Bulk lists (#4–#8), for REST and the MCP tools. */
@Module({
  imports: [StoresModule, EngineModule],
  controllers: [ListsController],
  providers: [ListsService, UploadStaging],
  exports: [ListsService, UploadStaging],
})
export class ListsModule {}
