import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import helmet from 'helmet';
import { absolutePath as swaggerUiPath } from 'swagger-ui-dist';
import { MemoryResultCache, RedisResultCache } from '@mailguard/cache';
import type { AppConfig } from '@mailguard/config';
import { Database } from '@mailguard/db';
import { createEngine } from '@mailguard/engine';
import { AppError } from '@mailguard/errors';
import { PinoNestLogger, type Logger } from '@mailguard/logger';
import { InProcessDriver } from '@mailguard/queue';
import { MemoryRateLimiter, RedisRateLimiter } from '@mailguard/ratelimit';
import { createRedis } from '@mailguard/redis';
import { AppModule } from './app.module';
import { ErrorFilter, noRouteMessage } from './http/error.filter';
import { requestLogging } from './http/request-logging';

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
  // Commands fail fast while Redis is not ready, so wait for the first connection (or its failure:
  // ioredis keeps retrying, and readiness says 503 meanwhile).
  await Promise.all([database.start(), redis?.connect().catch(() => undefined)]);

  const engine = createEngine(config);
  const queue = new InProcessDriver({ 'verify.address': ({ email, deadlineMs }) => engine.verify(email, { deadlineMs }) });
  const prefix = config.redis.keyPrefix;
  const infra = {
    logger,
    database,
    redis,
    limiter: redis ? new RedisRateLimiter(redis, prefix) : new MemoryRateLimiter(),
    cache: redis ? new RedisResultCache(redis, prefix) : new MemoryResultCache(),
    queue,
  };

  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, infra), {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
  });
  app.disable('x-powered-by');
  app.use(requestLogging(logger));
  // The docs page loads Swagger UI's own script and styles from this origin only.
  app.use(helmet({ contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"] } } }));
  app.useBodyParser('json', { limit: '1mb' });
  app.useStaticAssets(swaggerUiPath(), { prefix: '/docs/assets/', index: false });
  app.useGlobalFilters(new ErrorFilter(logger));
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      transform: true,
      exceptionFactory: (errors) =>
        new AppError('bad_request', errors.flatMap((error) => Object.values(error.constraints ?? { [error.property]: `${error.property} is invalid` })).join('; ')),
    }),
  );
  app.setGlobalPrefix('v1', { exclude: ['health/live', 'health/ready', 'docs', 'docs-json', 'docs/assets/docs-init.js'] });

  await app.init();
  // Nest's own 404 handler covers only the /v1 prefix; this answers everything else alike.
  app.use((req: Request, res: Response) => {
    res.status(404).json({ error: noRouteMessage(req.method, req.originalUrl.split('?')[0]) });
  });
  await app.listen(config.http.port, '0.0.0.0');
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      await app.close();
      await queue.close();
      await database.stop();
      redis?.disconnect();
    })());
  return { app, url: `http://127.0.0.1:${port}`, close };
}
