import compress from '@fastify/compress';
import middie from '@fastify/middie';
import fastifyStatic from '@fastify/static';
import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { absolutePath as swaggerUiPath } from 'swagger-ui-dist';
import type { AppConfig } from '@mailguard/config';
import { AppError } from '@mailguard/errors';
import { LogPrivacy, PinoNestLogger, type Logger } from '@mailguard/logger';
import { HealthChecks } from '@mailguard/health';
import { Metrics } from '@mailguard/metrics';
import { publishApiDocument } from './docs/document';
import { HttpDrain } from './http/drain';
import { answerError, ErrorFilter } from './http/error.filter';
import { InputPolicyPipe } from './http/input-policy.pipe';
import { BULL_BOARD_ROUTE, queueBoardLock } from './http/queue-board';
import { ADMIN_ROUTES } from './admin/admin.controller';
import { limitedFastifyAdapter, MCP_BODY_LIMIT, MCP_PATH, refuseOversizedBodies } from './http/limits';
import { AdminToken } from './auth/admin-token';
import { KeyMeter } from './auth/key-meter';
import { RATE_LIMITER } from './auth/tokens';
import { GatewayModule } from './gateway.module';
import { metricsBehindToken, MetricsScrape, MetricsServer } from './health/metrics';
import { requestLogging, requestScope } from './http/request-logging';
import { requestMetrics } from './http/request-metrics';
import { DASHBOARD_STATIC } from './dashboard/dashboard';
import { validationMessage } from './http/validation-message';
import { widgetCors } from './widget/widget-cors';
import { WIDGET_DEMO_DIR } from './widget/widget.controller';
import { CachedAnswer } from './validation/verification.service';

/** Where the files a browser loads are served: the dashboard, the widget's script and demo, Swagger UI. */
const STATIC_PATHS = ['/dashboard', '/v1/widget/widget.js', '/widget/demo', '/docs'];

function isStaticPath(url: string): boolean {
  return STATIC_PATHS.some((path) => url === path || url.startsWith(`${path}/`));
}

export interface Gateway {
  app: NestFastifyApplication;
  url: string;
  /** The Prometheus page, on METRICS_PORT. */
  metricsUrl: string;
  close(): Promise<void>;
}

/**
 * Builds the Nest app on Fastify (every connection and store is a provider of GatewayModule, opened as the
 * modules start, the metrics port among them) and starts listening on `config.http.port`. SIGTERM and SIGINT close it: the
 * server drains (after SHUTDOWN_DELAY_MS on SIGTERM), Nest ends the modules in order, and the process exits 0 (1 when
 * closing failed).
 */
export async function startGateway(config: AppConfig, logger: Logger): Promise<Gateway> {
  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.forRoot({ config, logger }),
    limitedFastifyAdapter(config.http.trustProxy),
    {
      logger: new PinoNestLogger(logger),
      bodyParser: false,
      // A module that cannot start (the embedded database) is main()'s error to report, not an abort.
      abortOnError: false,
    },
  );
  const fastify = app.getHttpAdapter().getInstance();
  const metrics = app.get(Metrics);
  const meter = app.get(KeyMeter);
  // Helmet's headers (CSP, HSTS, nosniff, …), worked out once by Nest and set by its first request hook
  // on every response. The docs page loads Swagger UI's own script and styles from this origin only.
  app.useSecurityHeaders({
    contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"] } },
  });
  // Fastify's request hooks, run for every request (routes, static files, the queue board, unknown
  // paths) in this order: before Nest middleware (middie, registered after them), body parsing and routing.
  fastify.addHook('onRequest', requestLogging(logger, new LogPrivacy(config.log)));
  fastify.addHook('onRequest', requestMetrics(metrics));
  if (config.metrics.token)
    fastify.addHook('onRequest', metricsBehindToken(app.get(MetricsScrape), config.metrics.token));
  fastify.addHook('onRequest', widgetCors);
  fastify.addHook('onRequest', refuseOversizedBodies);
  // The queue board (PipelineModule, with REDIS_URL and ADMIN_TOKEN), every path of it.
  if (config.redis.url && config.admin.token)
    fastify.addHook(
      'onRequest',
      queueBoardLock(new AdminToken(config.admin.token, app.get(RATE_LIMITER)), (error, request, reply) =>
        answerError(error, request, reply, logger, meter),
      ),
    );
  fastify.addHook('preHandler', requestScope);
  await app.register(middie);

  // Bodies: JSON only, up to JSON_BODY_LIMIT (MCP messages: their own limit). A multipart body is left
  // unread: the list upload streams its form itself (lists/upload.ts). Any other body is read up to
  // the same limit and dropped (left unread, Node would drain a chunked one of any size after the
  // answer), and a route that wants JSON gets none and says what is missing.
  fastify.removeAllContentTypeParsers();
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    // An empty body is none (clients send the header on bodiless POSTs): the route says what is missing.
    body.length === 0 ? done(null, {}) : parseJson(request, body.toString(), done),
  );
  fastify.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null));
  fastify.addHook('onRoute', (route) => {
    if (route.url === MCP_PATH) route.bodyLimit = MCP_BODY_LIMIT;
    // The files a browser loads (the dashboard, the widget script, the API docs) travel compressed; API answers do not.
    if (!isStaticPath(route.url)) route.compress = false;
  });
  await app.register(compress);
  // A cached single check's answer is already JSON text (VerificationService): sent as it is.
  fastify.setReplySerializer((payload) => (payload instanceof CachedAnswer ? payload.json : JSON.stringify(payload)));

  await app.register(fastifyStatic, { root: swaggerUiPath(), prefix: '/docs/assets/', index: false });
  await app.register(fastifyStatic, { root: WIDGET_DEMO_DIR, prefix: '/widget/demo/', decorateReply: false });
  await app.register(fastifyStatic, { ...DASHBOARD_STATIC, decorateReply: false });
  // Nest's filter of every route, and (through Fastify's error and not-found handlers, which Nest
  // sets) of every error before a route and of every unknown path, /v1 or not: answerNoRoute.
  app.useGlobalFilters(new ErrorFilter(logger, meter));
  app.useGlobalPipes(
    new InputPolicyPipe(),
    new ValidationPipe({
      whitelist: true,
      transform: true,
      exceptionFactory: (errors) => new AppError('bad_request', validationMessage(errors)),
    }),
  );
  app.setGlobalPrefix('v1', {
    exclude: [
      'health/live',
      'health/ready',
      '/',
      'favicon.ico',
      'docs',
      'docs-json',
      'docs/assets/docs-init.js',
      'mcp',
      // People's sign-in sits beside the API, not in it (docs/api.md#accounts-sessions-and-members).
      'auth/{*path}',
      BULL_BOARD_ROUTE,
      ...ADMIN_ROUTES,
    ],
  });
  publishApiDocument(app);

  // Signals are handled before the process says it is ready: a supervisor may stop it at once.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });

  await app.init();
  // Every request from here on is followed for the drain at shutdown (GatewayModule).
  app.get(HttpDrain).watch(app.getHttpServer(), app.get(HealthChecks));
  await app.listen(config.http.port, '0.0.0.0');
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;

  return {
    app,
    url: `http://127.0.0.1:${port}`,
    metricsUrl: app.get(MetricsServer).url,
    close: () => app.close(),
  };
}
