import type { IncomingMessage } from 'node:http';
import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import compression from 'compression';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import { absolutePath as swaggerUiPath } from 'swagger-ui-dist';
import type { AppConfig } from '@mailguard/config';
import { AppError } from '@mailguard/errors';
import { LogPrivacy, PinoNestLogger, type Logger } from '@mailguard/logger';
import { HealthChecks } from '@mailguard/health';
import { Metrics } from '@mailguard/metrics';
import { publishApiDocument } from './docs/document';
import { HttpDrain } from './http/drain';
import { answerNoRoute, ErrorFilter } from './http/error.filter';
import { InputPolicyPipe } from './http/input-policy.pipe';
import { BULL_BOARD_ROUTE } from './http/queue-board';
import { ADMIN_ROUTES } from './admin/admin.controller';
import {
  isMcpRequest,
  JSON_BODY_LIMIT,
  LimitedExpressAdapter,
  MCP_BODY_LIMIT,
  refuseOversizedBodies,
} from './http/limits';
import { KeyMeter } from './auth/key-meter';
import { GatewayModule } from './gateway.module';
import { metricsBehindToken, MetricsScrape, MetricsServer } from './health/metrics';
import { requestLogging } from './http/request-logging';
import { requestMetrics } from './http/request-metrics';
import { securityHeaders } from './http/security-headers';
import { DASHBOARD_DIR, DASHBOARD_STATIC } from './dashboard/dashboard';
import { validationMessage } from './http/validation-message';
import { widgetCors } from './widget/widget-cors';
import { WIDGET_DEMO_DIR } from './widget/widget.controller';
import { installFastPath, singleCheckFastPath } from './validation/fast-path';
import { ValidationController } from './validation/validation.controller';
import { VerificationService } from './validation/verification.service';

/** Where the files a browser loads are served: the dashboard, the widget's script and demo, Swagger UI. */
const STATIC_PATHS = ['/dashboard', '/v1/widget/widget.js', '/widget/demo', '/docs'];

export interface Gateway {
  app: NestExpressApplication;
  url: string;
  /** The Prometheus page, on METRICS_PORT. */
  metricsUrl: string;
  close(): Promise<void>;
}

/**
 * Builds the Nest app (every connection and store is a provider of GatewayModule, opened as the
 * modules start, the metrics port among them) and starts listening on `config.http.port`. SIGTERM and SIGINT close it: the
 * server drains (after SHUTDOWN_DELAY_MS on SIGTERM), Nest ends the modules in order, and the process exits 0 (1 when
 * closing failed).
 */
export async function startGateway(config: AppConfig, logger: Logger): Promise<Gateway> {
  const app = await NestFactory.create<NestExpressApplication>(
    GatewayModule.forRoot({ config, logger }),
    new LimitedExpressAdapter(),
    {
      logger: new PinoNestLogger(logger),
      bodyParser: false,
      // A module that cannot start (the embedded database) is main()'s error to report, not an abort.
      abortOnError: false,
    },
  );
  const metrics = app.get(Metrics);
  const meter = app.get(KeyMeter);
  app.disable('x-powered-by');
  // Behind a load balancer the client is the address it forwards, not the balancer's.
  if (config.http.trustProxy > 0) app.set('trust proxy', config.http.trustProxy);
  // API answers are never the same twice (request ids, balances): hashing each body for an ETag is waste.
  app.set('etag', false);
  const beforeRoutes = [
    requestLogging(logger, new LogPrivacy(config.log)),
    requestMetrics(metrics),
    // The docs page loads Swagger UI's own script and styles from this origin only.
    securityHeaders({
      contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"] } },
    }),
  ];
  for (const middleware of beforeRoutes) app.use(middleware);
  if (config.metrics.token) app.use(metricsBehindToken(app.get(MetricsScrape), config.metrics.token));
  const pipes = [
    new InputPolicyPipe(),
    new ValidationPipe({
      whitelist: true,
      transform: true,
      exceptionFactory: (errors) => new AppError('bad_request', validationMessage(errors)),
    }),
  ];
  app.use('/v1/widget', widgetCors);
  app.use(refuseOversizedBodies);
  // MCP messages first, with their own limit; a body read by one parser is skipped by the next.
  app.useBodyParser('json', {
    limit: MCP_BODY_LIMIT,
    type: (req: IncomingMessage) =>
      isMcpRequest(req) && /^application\/json\b/i.test(req.headers['content-type'] ?? ''),
  });
  app.useBodyParser('json', { limit: JSON_BODY_LIMIT });
  // The files a browser loads (the dashboard, the widget script, the API docs) travel compressed.
  app.use(STATIC_PATHS, compression());
  app.useStaticAssets(swaggerUiPath(), { prefix: '/docs/assets/', index: false });
  app.useStaticAssets(WIDGET_DEMO_DIR, { prefix: '/widget/demo/' });
  app.useStaticAssets(DASHBOARD_DIR, DASHBOARD_STATIC);
  app.useGlobalFilters(new ErrorFilter(logger, meter));
  app.useGlobalPipes(...pipes);
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
  // Nest's own 404 handler covers only the /v1 prefix; this answers everything else alike.
  app.use((req: Request, res: Response) => {
    void answerNoRoute(req, res, meter);
  });
  // In front of Express: plain single checks are answered without its router (the same middlewares first).
  if (config.http.fastPath)
    installFastPath(
      app.getHttpServer(),
      singleCheckFastPath({
        controller: app.get(ValidationController),
        verifications: app.get(VerificationService),
        meter,
        pipes,
        adapter: app.getHttpAdapter(),
        express: app.getHttpAdapter().getInstance(),
        before: beforeRoutes,
        logger,
        metrics,
      }),
    );
  // Every request from here on, the fast path's too, is followed for the drain at shutdown (GatewayModule).
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
