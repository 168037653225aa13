import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '@mailguard/errors';
import type { ToolError } from './schemas';
import { TOOL_NAMES, TOOLS, type ToolInput, type ToolName, type ToolValue } from './tools';

export const SERVER_INFO = { name: 'mailguard', title: 'MailGuard email verification', version: '1.0.0' };

const INSTRUCTIONS =
  'MailGuard tells whether an email address will receive mail before it is used. Check addresses with verify_email (one) or ' +
  "verify_emails (up to 100), find a person's address with find_email, and clean large lists with create_list, list_status and " +
  'list_results. Checks cost credits (see credits). A refused call returns isError with a JSON body {error, code} ' +
  '(and retryAfterSeconds when rate limited: wait that long before calling again).';

/** What a tool's backend answers: the value, and the balance after the call when it moved credits. */
export interface ToolAnswer<N extends ToolName> {
  value: ToolValue<N>;
  balance?: number;
}

export type ToolHandlers = { [N in ToolName]?: (input: ToolInput<N>) => Promise<ToolAnswer<N>> };

export interface ToolServerOptions {
  /** The tools this server offers: only those are listed. */
  handlers: ToolHandlers;
  /** Runs before the input is read, as REST's guard runs before its pipes: the rate limit, then the scope. */
  admit?(name: ToolName): Promise<void>;
  /** A failure as the REST error body it would have been. */
  describeError(error: unknown): ToolError;
}

/**
 * JSON Schema draft 7, which the SDK's clients validate against (zod's default, 2020-12, they do not
 * load). Answers may carry fields added after a client read the schema: outputs stay open.
 */
const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    override: (context) => {
      if (io === 'output' && context.jsonSchema.additionalProperties === false)
        delete context.jsonSchema.additionalProperties;
    },
  }) as Tool['inputSchema'];

/** Each tool's listing, converted from zod once per process rather than per request. */
const listings = new Map<ToolName, Tool>();
function listing(name: ToolName): Tool {
  let tool = listings.get(name);
  if (!tool) {
    const spec = TOOLS[name];
    tool = {
      name,
      title: spec.title,
      description: spec.description,
      inputSchema: jsonSchema(spec.input, 'input'),
      outputSchema: jsonSchema(spec.output, 'output'),
      annotations: spec.annotations,
    };
    listings.set(name, tool);
  }
  return tool;
}

const A_TYPE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

/**
 * The sentence of an argument of the wrong type (null included) whose schema says nothing of its own,
 * worded as REST's (`email must be a string`): zod's default does not name the argument.
 */
const argumentError: z.core.$ZodErrorMap = (issue) => {
  if (!issue.path?.length) return undefined;
  const name = issue.path.join('.');
  if (issue.code === 'invalid_type') return `${name} must be ${A_TYPE[issue.expected] ?? issue.expected}`;
  if (issue.code === 'invalid_value') return `${name} must be one of ${issue.values.join(', ')}`;
  return undefined;
};

/** zod's complaints about a tool's arguments, as the one-sentence 400 message REST would give. */
function badInput(error: z.ZodError): AppError {
  const message = error.issues
    .map((issue) =>
      issue.code === 'invalid_type' && issue.path.length > 0 && issue.input === undefined
        ? `${issue.path.join('.')} is required`
        : issue.message,
    )
    .join('; ');
  return new AppError('bad_request', message);
}

/**
 * An MCP server (the SDK's low-level Server, so that a refusal of any kind — the rate limit and the
 * scope before the arguments are read, then the arguments, then the call — is an `isError` result
 * with the REST error body, not a protocol error) offering the tools that have a handler.
 */
export function createToolServer(options: ToolServerOptions): Server {
  const offered = TOOL_NAMES.filter((name) => options.handlers[name]);
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: offered.map(listing) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const name = request.params.name as ToolName;
    // An unknown tool is the client's protocol error (MCP spec), not a user's mistake.
    if (!offered.includes(name))
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool ${request.params.name}; the tools are ${offered.join(', ')}`,
      );
    const spec = TOOLS[name];
    try {
      await options.admit?.(name);
      const parsed = spec.input.safeParse(request.params.arguments ?? {}, { error: argumentError });
      if (!parsed.success) throw badInput(parsed.error);
      const run = options.handlers[name] as (input: unknown) => Promise<ToolAnswer<typeof name>>;
      const { value, balance } = await run(parsed.data);
      const summary = (spec.summary as (value: unknown, input: unknown) => string)(value, parsed.data);
      const text = balance === undefined ? summary : `${summary}; balance ${balance} credits`;
      // The JSON too, for clients that show the model only `content` (MCP spec: structured content SHOULD also be serialised).
      return {
        content: [
          { type: 'text', text },
          { type: 'text', text: JSON.stringify(value) },
        ],
        structuredContent: value as Record<string, unknown>,
      };
    } catch (error) {
      // No structuredContent: clients validate it against the tool's output schema even on errors.
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(options.describeError(error)) }] };
    }
  });
  return server;
}

/** The error body of an AppError; anything else is the service's own failure (500's body). */
export function describeAppError(error: unknown): ToolError | null {
  if (!(error instanceof AppError)) return null;
  return {
    error: error.message,
    code: error.code,
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
  };
}
