import type { IncomingMessage } from 'node:http';
import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import { absolutePath as swaggerUiPath } from 'swagger-ui-dist';
import { MemoryResultCache, RedisResultCache } from '@mailguard/cache';
import { Metrics } from '@mailguard/metrics';
import type { AppConfig } from '@mailguard/config';
import { CreditLedger } from '@mailguard/credits';
import { DomainKnowledge, FeedbackStore } from '@mailguard/feedback';
import { Database } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import { ApiKeys, RedisKeyChanges } from '@mailguard/keys';
import { PinoNestLogger, type Logger } from '@mailguard/logger';
import { WidgetSettingsStore } from '@mailguard/widget';
import { ListStore } from '@mailguard/lists';
import { buildEngine, ResultStore, superviseGate } from '@mailguard/pipeline';
import { MemoryDailyQuota, MemoryRateLimiter, RedisDailyQuota, RedisRateLimiter } from '@mailguard/ratelimit';
import { connectRedis, createRedis } from '@mailguard/redis';
import { AppModule } from './app.module';
import { BULL_BOARD_ROUTE } from './http/queue-board';
import { answerNoRoute, ErrorFilter } from './http/error.filter';
import { InputPolicyPipe } from './http/input-policy.pipe';
import { isMcpRequest, JSON_BODY_LIMIT, LimitedExpressAdapter, MCP_BODY_LIMIT, refuseOversizedBodies } from './http/limits';
import { KeyMeter } from './auth/key-meter';
import { requestLogging } from './http/request-logging';
import { securityHeaders } from './http/security-headers';
import { widgetCors } from './widget/widget-cors';
import { WIDGET_DEMO_DIR } from './widget/widget.controller';

export interface Gateway {
  app: NestExpressApplication;
  url: string;
  close(): Promise<void>;
}

/** Opens the connections, builds the Nest app and starts listening on `config.http.port`. */
export async function startGateway(config: AppConfig, logger: Logger): Promise<Gateway> {
  const database = new Database(config.database, logger);
  const redis = createRedis(config.redis);
  redis?.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  await Promise.all([database.start(), redis && connectRedis(redis)]);

  const prefix = config.redis.keyPrefix;
  const engine = buildEngine(config, redis);
  const cache = redis ? new RedisResultCache(redis, prefix) : new MemoryResultCache();
  const store = new ResultStore(() => database.dataSource, cache, config.checks.cacheTtlSeconds);
  const lists = new ListStore(() => database.dataSource);
  const knowledge = new DomainKnowledge(() => database.dataSource);
  const metrics = new Metrics('gateway');
  superviseGate(engine.gate, metrics, logger);
  const limiter = redis ? new RedisRateLimiter(redis, prefix) : new MemoryRateLimiter();
  const keys = new ApiKeys(() => database.dataSource, redis ? new RedisKeyChanges(redis, prefix) : null);
  await keys.listen();
  const ledger = new CreditLedger(() => database.dataSource, (accountId, balance) => keys.noteBalance(accountId, balance));
  const meter = new KeyMeter(keys, limiter, config);
  const infra = {
    metrics,
    keys,
    meter,
    ledger,
    lists,
    feedback: new FeedbackStore(() => database.dataSource),
    widgetSettings: new WidgetSettingsStore(() => database.dataSource),
    knowledge,
    quota: redis ? new RedisDailyQuota(redis, prefix) : new MemoryDailyQuota(),
    database,
    redis,
    limiter,
    cache,
    store,
    engine,
    logger,
  };

  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, infra), new LimitedExpressAdapter(), {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
  });
  app.disable('x-powered-by');
  // Behind a load balancer the client is the address it forwards, not the balancer's.
  if (config.http.trustProxy > 0) app.set('trust proxy', config.http.trustProxy);
  // API answers are never the same twice (request ids, balances): hashing each body for an ETag is waste.
  app.set('etag', false);
  app.use(requestLogging(logger));
  app.use((req: Request, res: Response, next: () => void) => {
    const stop = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      // The route pattern, never the raw path: one series per endpoint, not per address checked.
      const route = req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'unmatched';
      const labels = { route, method: req.method, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      stop(labels);
    });
    next();
  });
  // The docs page loads Swagger UI's own script and styles from this origin only.
  app.use(securityHeaders({ contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"] } } }));
  app.use('/v1/widget', widgetCors);
  app.use(refuseOversizedBodies);
  // MCP messages first, with their own limit; a body read by one parser is skipped by the next.
  app.useBodyParser('json', { limit: MCP_BODY_LIMIT, type: (req: IncomingMessage) => isMcpRequest(req) && /^application\/json\b/i.test(req.headers['content-type'] ?? '') });
  app.useBodyParser('json', { limit: JSON_BODY_LIMIT });
  app.useStaticAssets(swaggerUiPath(), { prefix: '/docs/assets/', index: false });
  app.useStaticAssets(WIDGET_DEMO_DIR, { prefix: '/widget/demo/' });
  app.useGlobalFilters(new ErrorFilter(logger, meter));
  app.useGlobalPipes(
    new InputPolicyPipe(),
    new ValidationPipe({
      whitelist: true,
      transform: true,
      exceptionFactory: (errors) =>
        new AppError('bad_request', errors.flatMap((error) => Object.values(error.constraints ?? { [error.property]: `${error.property} is invalid` })).join('; ')),
    }),
  );
  app.setGlobalPrefix('v1', {
    exclude: ['health/live', 'health/ready', 'metrics', 'docs', 'docs-json', 'docs/assets/docs-init.js', 'mcp', BULL_BOARD_ROUTE],
  });

  await app.init();
  // Nest's own 404 handler covers only the /v1 prefix; this answers everything else alike.
  app.use((req: Request, res: Response) => {
    void answerNoRoute(req, res, meter);
  });
  await app.listen(config.http.port, '0.0.0.0');
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      // Closes the pipeline and the queues too (their modules' shutdown hooks).
      await app.close();
      keys.close();
      await database.stop();
      redis?.disconnect();
    })());
  return { app, url: `http://127.0.0.1:${port}`, close };
}
