import { mcpSuite } from './mcp-suite';

mcpSuite('in-process');
