import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AppConfig } from '@mailguard/config';
import { Database } from '@mailguard/db';
import { PinoNestLogger, type Logger } from '@mailguard/logger';
import { createRedis } from '@mailguard/redis';
import { AppModule } from './app.module';
import type { Request, Response } from 'express';
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
  await database.start();

  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, { logger, database, redis }), {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
  });
  app.disable('x-powered-by');
  app.use(requestLogging(logger));
  app.useBodyParser('json', { limit: '1mb' });
  app.useGlobalFilters(new ErrorFilter(logger));
  app.setGlobalPrefix('v1', { exclude: ['health/live', 'health/ready'] });

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
      await database.stop();
      redis?.disconnect();
    })());
  return { app, url: `http://127.0.0.1:${port}`, close };
}
