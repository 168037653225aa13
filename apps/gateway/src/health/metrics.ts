import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { Metrics } from '@mailguard/metrics';
import { QUEUES } from '@mailguard/queue';
import { sameSecret } from '../auth/admin-token';

/** The gateway's Prometheus text; queue depths are read at scrape time. */
@Injectable()
export class MetricsScrape {
  constructor(
    private readonly metrics: Metrics,
    @Inject(QUEUES) private readonly queues: Queue[],
  ) {}

  async text(): Promise<string> {
    await Promise.all(
      this.queues.map(async (queue) => {
        const counts = await queue.getJobCounts('wait', 'delayed', 'active').catch(() => null);
        for (const [state, count] of Object.entries(counts ?? {}))
          this.metrics.queueDepth.set({ queue: queue.name, state }, count);
      }),
    );
    return this.metrics.text();
  }

  /** Answers a scrape. */
  answer(res: ServerResponse): void {
    this.text().then(
      (text) => res.writeHead(200, { 'Content-Type': this.metrics.contentType }).end(text),
      () => json(res, 500, UNREADABLE),
    );
  }

  /** Answers a scrape through Fastify's reply. */
  reply(reply: FastifyReply): void {
    this.text().then(
      (text) => reply.type(this.metrics.contentType).send(text),
      () => reply.code(500).send(UNREADABLE),
    );
  }
}

const UNREADABLE = { error: 'The metrics could not be read; retry at the next scrape', code: 'internal' };

const isScrape = (req: IncomingMessage) => req.method === 'GET' && req.url?.split('?')[0] === '/metrics';

function json(res: ServerResponse, status: number, body: { error: string; code: string }): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/**
 * `GET /metrics` on METRICS_PORT, a port of its own: the API port, public, never shows them (but to
 * METRICS_TOKEN, see `metricsBehindToken`). Open from bootstrap to shutdown; a scraper's kept-alive
 * connection is closed with it.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server: Server | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly scrape: MetricsScrape,
  ) {}

  /** Where the metrics are, once listening. */
  get url(): string {
    const port = (this.server?.address() as AddressInfo | null)?.port ?? this.config.metrics.port;
    return `http://127.0.0.1:${port}/metrics`;
  }

  async onApplicationBootstrap(): Promise<void> {
    const server = createServer((req, res) => {
      if (isScrape(req)) return this.scrape.answer(res);
      json(res, 404, { error: `No route for ${req.method} ${req.url?.split('?')[0]}`, code: 'not_found' });
    });
    server.listen(this.config.metrics.port, '0.0.0.0');
    try {
      await once(server, 'listening');
    } catch (error) {
      // Nothing is held: a server that failed to listen has no socket.
      throw new Error(`METRICS_PORT ${this.config.metrics.port}: ${(error as Error).message}`, { cause: error });
    }
    this.server = server;
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    const closed = once(server, 'close');
    server.close();
    server.closeAllConnections();
    await closed;
  }
}

/**
 * A request hook: `GET /metrics` on the API port, for an operator who set METRICS_TOKEN: `Authorization: Bearer
 * <token>` or 401. Without the token the route does not exist there (404, as any unknown path).
 */
export function metricsBehindToken(scrape: MetricsScrape, token: string) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (!isScrape(request.raw)) return done();
    const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    // Answered here, a request hook: no route serves it.
    if (bearer && sameSecret(bearer, token)) return scrape.reply(reply);
    void reply.header('WWW-Authenticate', 'Bearer realm="MailGuard metrics"').code(401).send({
      error: 'GET /metrics on this port needs Authorization: Bearer <METRICS_TOKEN>',
      code: 'unauthorized',
    });
  };
}
