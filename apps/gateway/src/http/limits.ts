import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode } from '@mailguard/errors';
import { MAX_UPLOAD_REQUEST_BYTES } from '../lists/upload';
import { describeError } from './error.filter';
import { requestIdFor } from './request-logging';

/** JSON bodies: the largest the API takes is a batch of 100 addresses, far below this. */
export const JSON_BODY_LIMIT = 1024 * 1024;
/** The agent tool server's path (docs/mcp.md), outside `/v1`. */
export const MCP_PATH = '/mcp';
/**
 * MCP messages: create_list carries a CSV of up to 5 MB as a JSON string, which escaping can double.
 * Room beyond that, so that a CSV over 5 MB is refused by the tool (an MCP tool error), not by HTTP.
 */
export const MCP_BODY_LIMIT = 16 * 1024 * 1024;

export function isMcpRequest(req: IncomingMessage): boolean {
  const path = (req.url ?? '').split('?')[0];
  return path === MCP_PATH || path === `${MCP_PATH}/`;
}
const MAX_HEADER_BYTES = 16 * 1024;
/**
 * A client's headers come in one packet: one still sending them after this long holds a connection
 * for nothing (slow-loris) and is answered 408 and dropped. A whole request, a 50 MB list upload
 * included, has REQUEST_TIMEOUT_MS.
 */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 300_000;
/** How often Node looks for connections past those timeouts (its default, 30 s, would let them linger). */
const TIMEOUT_CHECK_MS = 1_000;

const CLIENT_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    code: 'headers_too_large',
    message: `The request headers are larger than ${MAX_HEADER_BYTES / 1024} KiB`,
  },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', message: 'The request did not arrive in time' },
};

/**
 * What Node refuses before there is a request (headers too large or too slow, malformed HTTP) is
 * answered `{error, code}` like every other error, and the connection closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A response already under way (or a client gone) leaves nothing to say.
  const started = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage?.headersSent;
  if (!socket.writable || started || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const { code, message } = CLIENT_ERRORS[error.code ?? ''] ?? {
    code: 'bad_request',
    message: 'Malformed HTTP request',
  };
  const status = ERROR_STATUS[code];
  const body = JSON.stringify({ error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * A path parameter's longest raw form: an address of MAX_ADDRESS_INPUT characters, each
 * percent-encoded UTF-8 (up to 12 bytes a character). Fastify's default (100) would answer 404.
 */
const MAX_PARAM_LENGTH = 12 * 1024;

/**
 * Nest's Fastify adapter on a Node server with the limits above. No ETag (Fastify sets none: API
 * answers are never the same twice), the client's address the one `trustProxy` hops of forwarding
 * say, and request ids that keep a client's sane X-Request-Id.
 */
export function limitedFastifyAdapter(trustProxy: number): FastifyAdapter {
  const adapter: FastifyAdapter = new FastifyAdapter({
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
      const server = createServer<typeof IncomingMessage, typeof ServerResponse>(
        {
          headersTimeout: HEADERS_TIMEOUT_MS,
          requestTimeout: REQUEST_TIMEOUT_MS,
          connectionsCheckingInterval: TIMEOUT_CHECK_MS,
          maxHeaderSize: MAX_HEADER_BYTES,
        },
        handler,
      );
      // Node answers an Expect it cannot meet with an empty 417 of its own; this one says why, in the API's form.
      server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
        res
          .writeHead(417, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' })
          .end(JSON.stringify({ error: 'Only Expect: 100-continue is understood', code: 'bad_request' }));
      });
      return server;
    },
    clientErrorHandler: answerClientError,
    bodyLimit: JSON_BODY_LIMIT,
    // Behind a load balancer the client is the address it forwards, not the balancer's (as many hops as trusted).
    trustProxy: (_address: string, hop: number) => hop < trustProxy,
    genReqId: requestIdFor,
    // Registered by the gateway after its request hooks, so that those run before Nest middleware too.
    skipMiddie: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // The router refuses a malformed percent-encoding (400) or an over-long parameter (414) before any hook or
    // filter runs: answered here in the API's shape. Nest's own handler, which this replaces, sets the security
    // headers first through its (private) hook; so does this one.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      try {
        (adapter as unknown as { securityHook?: (req: FastifyRequest, res: ServerResponse) => void }).securityHook?.(
          request,
          reply.raw,
        );
      } catch {
        // Refused either way; a throw here would escape the router.
      }
      const { status, body } = describeError(error);
      void reply.code(status).type('application/json; charset=utf-8').send(body);
    },
  });
  return adapter;
}

/** A body refused by its declared length is still read and dropped up to this size, for at most DRAIN_MS. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;
const DRAIN_MS = 5_000;

/**
 * Refuses a body declared larger than its route could take, before reading a byte of it: 413. The
 * connection is not closed at once: closing with the client's bytes unread resets it, and a client
 * still sending loses the answer with it (10 of 966 such answers in a 100,000-input fuzz run). Node
 * reads the rest and drops it, then the connection serves the next request; a body that has not
 * arrived within DRAIN_MS, or one declared over DRAIN_LIMIT_BYTES, has its connection closed.
 * Bodies without a declared length are cut off by their parsers at the same limits.
 */
export function refuseOversizedBodies(
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const req = request.raw;
  const declared = Number(req.headers['content-length'] ?? 0);
  const upload = /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');
  const limit = upload ? MAX_UPLOAD_REQUEST_BYTES : isMcpRequest(req) ? MCP_BODY_LIMIT : JSON_BODY_LIMIT;
  if (declared <= limit) return done();
  if (declared > DRAIN_LIMIT_BYTES) {
    reply.header('Connection', 'close');
  } else {
    const socket = req.socket;
    const cut = setTimeout(() => socket.destroy(), DRAIN_MS).unref();
    // Emitted once the body is all read, or the connection is gone.
    req.once('close', () => clearTimeout(cut));
  }
  done(new AppError('payload_too_large', `The request body (${declared} bytes) is over the limit of ${limit} bytes`));
}
