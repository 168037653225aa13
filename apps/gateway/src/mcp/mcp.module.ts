import { Module, type DynamicModule } from '@nestjs/common';
import { MetricsModule, StoresModule } from '@mailguard/core';
import { AuthModule } from '../auth/auth.module';
import { FinderModule } from '../finder/finder.module';
import { ListsModule } from '../lists/lists.module';
import { pipelineFeature } from '../pipeline/pipeline.module';
import { ValidationModule } from '../validation/validation.module';
import { McpController } from './mcp.controller';
import { McpTools } from './mcp.tools';

/** The agent tool server (docs/mcp.md): the REST services behind MCP tools, metered alike. */
@Module({
  imports: [StoresModule, MetricsModule, AuthModule],
  controllers: [McpController],
  providers: [McpTools],
})
export class McpModule {
  /** With the gateway's job transport, which the checks, the finder and the lists it serves need. */
  static withPipeline(pipeline: DynamicModule): DynamicModule {
    return pipelineFeature(pipeline, McpModule, [
      ValidationModule.withPipeline(pipeline),
      FinderModule.withPipeline(pipeline),
      ListsModule.withPipeline(pipeline),
    ]);
  }
}
