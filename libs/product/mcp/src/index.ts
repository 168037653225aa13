export {
  createToolServer,
  describeAppError,
  SERVER_INFO,
  type ToolAnswer,
  type ToolHandlers,
  type ToolServerOptions,
} from './tool-server';
export { MAX_CSV_TEXT_BYTES, TOOL_NAMES, TOOLS, type ToolInput, type ToolName, type ToolValue } from './tools';
export type { ToolError } from './schemas';
