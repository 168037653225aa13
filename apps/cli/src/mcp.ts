import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AppConfig } from '@mailguard/config';
import { LogPrivacy } from '@mailguard/logger';
import { createToolServer, describeAppError } from '@mailguard/mcp';
import { localBackend } from './backend';
import { runConcurrently } from './concurrency';

/** As `mailguard verify`: addresses checked at once per batch. */
const BATCH_CONCURRENCY = 16;

function log(message: string): void {
  // stdout carries the protocol and nothing else.
  process.stderr.write(`mailguard mcp: ${message}\n`);
}

/** Ends the process when the client closes stdin: the engine's sockets and timers would keep it alive. */
function exitWithStdin(close: () => Promise<void>): void {
  process.stdin.once('end', () => {
    void close().finally(() => process.exit(0));
  });
}

/**
 * The engine in this process, like `mailguard verify`: unmetered, no account, so only the tools that
 * need none (lists, feedback and credits live in a service).
 */
export async function serveLocal(config: AppConfig): Promise<void> {
  // The addresses the tools check, and what failed with them, reach stderr masked as a service's logs.
  const privacy = new LogPrivacy(config.log);
  const local = localBackend(config, (message) => log(privacy.line(`warning: ${message}`)));
  const server = createToolServer({
    describeError: (error) =>
      describeAppError(error) ??
      (log(
        privacy.line(`tool call failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
      ),
      { error: 'Internal error; retry after a short delay', code: 'internal' }),
    handlers: {
      verify_email: async ({ email }) => ({ value: await local.verify(email) }),
      verify_emails: async ({ emails }) => ({
        value: { results: await runConcurrently(emails, BATCH_CONCURRENCY, (email) => local.verify(email)) },
      }),
      find_email: async (query) => ({ value: await local.find(query) }),
      domain_insight: async ({ domain }) => ({ value: await local.domain(domain) }),
    },
  });
  await server.connect(new StdioServerTransport());
  exitWithStdin(() => server.close());
  log(
    'serving the engine in this process on stdio (unmetered; set MAILGUARD_API_URL and MAILGUARD_API_KEY to use a service)',
  );
}

/**
 * A thin client of a running service: every message goes to its `/mcp` endpoint with the key, so the
 * tools, their metering and their refusals are the service's own.
 */
export async function serveProxy(apiUrl: string, apiKey: string): Promise<void> {
  // MAILGUARD_API_URL may be the host or the REST base (`…/v1`).
  const endpoint = new URL(`${apiUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/mcp`);
  const upstream = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { 'X-API-Key': apiKey } } });
  const local = new StdioServerTransport();
  const initializing = new Set<string | number>();
  local.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializing.add(message.id);
    upstream.send(message).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      log(`the service at ${endpoint.href} refused a message: ${reason}`);
      // A request must be answered, or the client waits for ever.
      if (isJSONRPCRequest(message))
        void local.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32000, message: `MailGuard service at ${endpoint.href}: ${reason}` },
        });
    });
  };
  upstream.onmessage = (message: JSONRPCMessage) => {
    // Later requests name the protocol version the service agreed to, as an SDK client would.
    if (isJSONRPCResultResponse(message) && initializing.delete(message.id))
      upstream.setProtocolVersion(String(message.result.protocolVersion));
    void local.send(message);
  };
  upstream.onerror = (error) => log(`service connection: ${error.message}`);
  await upstream.start();
  await local.start();
  exitWithStdin(() => Promise.all([upstream.close(), local.close()]).then(() => undefined));
  log(`relaying stdio to ${endpoint.href}`);
}
