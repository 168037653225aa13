import { createServer, type Server } from 'node:http';
import type { Worker } from 'bullmq';
import { ConfigError, loadConfig, type AppConfig, type WorkerName } from '@mailguard/config';
import { Database } from '@mailguard/db';
import { createLogger, surviveUnhandled, type Logger } from '@mailguard/logger';
import { bullOptions } from '@mailguard/pipeline';
import { ClockWatchdog, startStageWorker, type JobHandlers, type QueueName, type StageContext } from '@mailguard/queue';
import { connectRedis, createRedis } from '@mailguard/redis';
import type { Redis } from 'ioredis';
import { Metrics } from '@mailguard/metrics';

export interface WorkerKind {
  queue: QueueName;
  /** Jobs a process runs at once, unless WORKER_CONCURRENCY says otherwise. */
  concurrency: number;
  needsDatabase: boolean;
  handlers(context: WorkerContext): Partial<JobHandlers>;
  /** Runs once the worker takes jobs (the list worker takes up lists that were running). */
  started?(context: WorkerContext, jobs: StageContext): Promise<void>;
}

export interface WorkerContext {
  config: AppConfig;
  logger: Logger;
  redis: Redis;
  database: Database | null;
  metrics: Metrics;
}

function fail(name: WorkerName, message: string): never {
  process.stderr.write(`mailguard ${name}: ${message}\n`);
  process.exit(1);
}

/**
 * Boots one worker process: validated configuration, Redis (required: workers exist only in the
 * distributed mode), Postgres when the stage stores results, the BullMQ worker of its queue, and
 * `/health/live` + `/metrics`. SIGTERM lets in-flight jobs finish before the process exits; a
 * SIGKILLed worker's jobs come back through BullMQ's stalled-job recovery.
 */
export async function runWorker(name: WorkerName, kind: WorkerKind): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(name, error.message);
    throw error;
  }
  if (!config.redis.url) fail(name, 'REDIS_URL is required: workers take their jobs from BullMQ (without it, `npm start` runs everything in one process)');
  const logger = createLogger(config.log, name);
  surviveUnhandled(logger);
  const redis = createRedis(config.redis) as Redis;
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  await connectRedis(redis);
  const database = kind.needsDatabase ? await Database.open(config.database, logger) : null;

  const metrics = new Metrics(name);

  const concurrency = config.workers.concurrency ?? kind.concurrency;
  const context = { config, logger, redis, database, metrics };
  const { worker, producer } = startStageWorker(kind.queue, kind.handlers(context), {
    ...bullOptions(config),
    concurrency,
    onFailed: (job, err) => logger.warn({ job: job?.name, jobId: job?.id, attempt: job?.attemptsMade, err: err.message }, 'job failed'),
  });
  worker.on('completed', (job) => {
    metrics.jobs.inc({ queue: kind.queue, job: job.name, outcome: 'completed' });
    if (job.processedOn && job.finishedOn) metrics.jobDuration.observe({ queue: kind.queue, job: job.name }, (job.finishedOn - job.processedOn) / 1000);
  });
  worker.on('failed', (job) => metrics.jobs.inc({ queue: kind.queue, job: job?.name ?? 'unknown', outcome: 'failed' }));
  // BullMQ times delayed jobs by the wall clock: a jump back must not strand retries and sweeps.
  const watchdog = new ClockWatchdog([producer.queue(kind.queue)], redis, {
    onJump: (jumpMs, rearmed) => logger.warn({ jumpMs, rearmed }, 'the wall clock jumped; delayed jobs re-armed to their own delays'),
  });
  watchdog.start();
  const server = await serveHealth(config.workers.ports[name], worker, metrics);
  await kind.started?.(context, producer);
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down: finishing jobs in flight');
    void (async () => {
      watchdog.stop();
      await worker.close();
      await producer.close();
      server.close();
      await database?.stop();
      redis.disconnect();
      process.exit(0);
    })();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  const port = (server.address() as { port: number }).port;
  logger.info({ queue: kind.queue, concurrency, port }, 'worker started');
  process.stdout.write(`MailGuard ${name} working on queue "${kind.queue}" (concurrency ${concurrency}); liveness and metrics on http://127.0.0.1:${port}\n`);
}

function serveHealth(port: number, worker: Worker, metrics: Metrics): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/health/live') {
      const running = worker.isRunning();
      res.writeHead(running ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify(running ? { status: 'ok' } : { error: 'the worker is not running' }));
      return;
    }
    if (req.url === '/metrics') {
      void metrics.text().then((text) => {
        res.writeHead(200, { 'content-type': metrics.contentType });
        res.end(text);
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: `No route for ${req.method} ${req.url}` }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
}
