import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';

/** What tells the load balancer whether to send traffic here: readiness (HealthChecks). */
export interface ReadinessSwitch {
  drain(): void;
}

/**
 * The connection draining of the API's server at shutdown. From its `begin` readiness says 503 and
 * every answer carries `Connection: close` (a client's kept-alive connection would otherwise go on
 * reaching this process after the load balancer has stopped sending it new ones), while requests
 * are served as usual; `finish` stops accepting connections, closes the idle ones, and resolves
 * once every request in flight has been answered and its connection closed. Node's own
 * `server.close()` alone does not: a kept-alive connection goes on serving requests after it, so a
 * busy client would hold the server open.
 */
@Injectable()
export class HttpDrain {
  private server: Server | null = null;
  private readiness: ReadinessSwitch | null = null;
  /** Answers under way (their request arrived, the response has not finished). */
  private readonly inFlight = new Set<ServerResponse>();
  private draining = false;

  /**
   * Follows the requests of `server`. Its listener goes before Fastify's, so that a request
   * answered at once (a hook's answer) is marked too.
   * `readiness` is told when the drain starts.
   */
  watch(server: Server, readiness: ReadinessSwitch): void {
    this.server = server;
    this.readiness = readiness;
    server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
      if (this.draining) res.shouldKeepAlive = false;
      this.inFlight.add(res);
      res.once('close', () => this.inFlight.delete(res));
    });
  }

  /** Requests being answered now. */
  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  /** Readiness says 503, and every answer from now on closes its connection; serving goes on. */
  begin(): void {
    if (this.draining) return;
    this.draining = true;
    this.readiness?.drain();
    for (const res of this.inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
  }

  /** No new connection; resolves once the requests in flight are answered and every connection is closed. */
  async finish(): Promise<void> {
    this.begin();
    const server = this.server;
    if (!server?.listening) return;
    const closed = once(server, 'close');
    // Closes the connections without a request in flight; the others close once answered.
    server.close();
    await closed;
  }
}
