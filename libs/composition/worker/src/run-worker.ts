import { setFlagsFromString } from 'node:v8';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigError, loadConfig, type AppConfig, type WorkerName } from '@mailguard/config';
import { createLogger, PinoNestLogger, surviveUnhandled } from '@mailguard/logger';
import { NoRouteFilter } from './worker-http';
import { WorkerModule, type WorkerKind } from './worker.module';

function fail(name: WorkerName, message: string): never {
  process.stderr.write(`mailguard ${name}: ${message}\n`);
  process.exit(1);
}

function configuration(name: WorkerName): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(name, error.message);
    throw error;
  }
}

/**
 * Boots one worker process, a Nest application serving only `/health/live` and `/metrics` (an
 * application context has no HTTP server, and these two need one). Redis is required: workers exist
 * only in the distributed mode. SIGTERM lets in-flight jobs finish, or hand back at their checkpoint
 * (a list's feed), before the process exits; a SIGKILLed worker's jobs come back through BullMQ's
 * stalled-job recovery.
 */
export async function runWorker(name: WorkerName, kind: WorkerKind): Promise<void> {
  const config = configuration(name);
  if (!config.redis.url) {
    fail(
      name,
      'REDIS_URL is required: workers take their jobs from BullMQ (without it, `npm start` runs everything in one process)',
    );
  }
  const logger = createLogger(config.log, name);
  surviveUnhandled(logger);
  // Read by V8 at every full GC, so setting it here (before the jobs) paces the whole run.
  if (kind.heapGrowingPercent) setFlagsFromString(`--heap-growing-percent=${kind.heapGrowingPercent}`);
  try {
    const app = await NestFactory.create<NestExpressApplication>(WorkerModule.forRoot({ name, kind, config, logger }), {
      logger: new PinoNestLogger(logger),
      bodyParser: false,
      abortOnError: false,
    });
    app.disable('x-powered-by');
    app.useGlobalFilters(new NoRouteFilter());
    // Signals go to Nest: in-flight jobs finish, the queues and connections close, then exit code 0.
    app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
    await app.listen(config.workers.ports[name], '0.0.0.0');
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : config.workers.ports[name];
    const concurrency = config.workers.concurrency ?? kind.concurrency;
    logger.info({ queue: kind.queue, concurrency, port }, 'worker started');
    process.stdout.write(
      `MailGuard ${name} working on queue "${kind.queue}" (concurrency ${concurrency}); ` +
        `liveness and metrics on http://127.0.0.1:${port}\n`,
    );
  } catch (error) {
    fail(name, `failed to start: ${error instanceof Error ? error.message : String(error)}`);
  }
}
