import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@mailguard/errors';
import type { Authenticated } from '@mailguard/keys';
import { Metrics } from '@mailguard/metrics';
import { Public } from '../auth/access';
import { assertActive } from '../auth/api-key.guard';
import { KeyMeter } from '../auth/key-meter';
import { headerOf } from '../http/request-headers';
import { McpTools } from './mcp.tools';

/** The key of an MCP client: `X-API-Key`, or `Authorization: Bearer <key>` as MCP clients send tokens. */
function presentedKey(req: FastifyRequest): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return headerOf(req, 'x-api-key') ?? bearer?.[1];
}

/**
 * The agent tool server over MCP streamable HTTP (docs/mcp.md), stateless: every POST carries one
 * message and is answered with JSON; no session lives between requests, so any gateway replica
 * answers any request and nothing is left to expire. Each POST authenticates its key (401/403
 * before any MCP exchange, key guessing throttled like REST) and gets its own server and
 * transport, both closed when the response ends. Rate limit, scopes and credits are per tool call.
 */
@ApiExcludeController()
@Controller('mcp')
@Public()
export class McpController {
  constructor(
    private readonly meter: KeyMeter,
    private readonly tools: McpTools,
    private readonly metrics: Metrics,
  ) {}

  @Post()
  async message(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const auth = await this.authenticate(req, reply);
    const server = this.tools.serverFor(auth);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // Counted until the transport has really closed: the soak tests watch this gauge return to 0.
    this.metrics.mcpTransports.inc();
    this.metrics.mcpTransportsOpened.inc();
    transport.onclose = () => this.metrics.mcpTransports.dec();
    // The SDK's transport answers on Node's own response: Fastify leaves it alone from here, and the
    // headers set so far (rate limit, request id) go with the answer.
    const res = reply.hijack().raw;
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
    res.once('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req.raw, res, req.body);
  }

  /** No event stream and no session to end: the server never speaks first. */
  @Get()
  stream(@Res() res: FastifyReply): never {
    return this.notAllowed(res);
  }

  @Delete()
  end(@Res() res: FastifyReply): never {
    return this.notAllowed(res);
  }

  private notAllowed(res: FastifyReply): never {
    res.header('Allow', 'POST');
    throw new AppError(
      'method_not_allowed',
      'This MCP server is stateless: send every message with POST /mcp (there is no event stream or session)',
    );
  }

  private async authenticate(req: FastifyRequest, res: FastifyReply): Promise<Authenticated> {
    const presented = presentedKey(req);
    if (!presented)
      throw new AppError(
        'unauthorized',
        'Missing API key: send it in the X-API-Key header or as Authorization: Bearer <key>',
      );
    const auth = await this.meter.identify(presented, req.ip, res);
    if (!auth) throw new AppError('unauthorized', 'Invalid or revoked API key');
    if (auth.key.type === 'widget') throw new AppError('forbidden', 'Widget keys work only on POST /v1/widget/verify');
    // Every MCP message, not only tool calls (those are admitted again per tool, see McpTools).
    assertActive(auth);
    return auth;
  }
}
