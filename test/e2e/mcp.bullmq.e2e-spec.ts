import { mcpSuite } from './mcp-suite';

mcpSuite('bullmq');
