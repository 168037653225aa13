import { Module } from '@nestjs/common';
import { StoresModule } from '@mailguard/core';
import { AuthModule } from '../auth/auth.module';
import { FinderModule } from '../finder/finder.module';
import { ListsModule } from '../lists/lists.module';
import { ValidationModule } from '../validation/validation.module';
import { McpController } from './mcp.controller';
import { McpTools } from './mcp.tools';

/** The agent tool server (docs/mcp.md): the REST services behind MCP tools, metered alike. */
@Module({
  imports: [StoresModule, AuthModule, ValidationModule, FinderModule, ListsModule],
  controllers: [McpController],
  providers: [McpTools],
})
export class McpModule {}
