import { ModulesContainer, NestFactory } from '@nestjs/core';
import { loadConfig, type WorkerName } from '@mailguard/config';
import { EngineModule, ProberModule, StoresModule, WebhooksModule } from '@mailguard/core';
import { listSweeps } from '@mailguard/lists';
import { createLogger } from '@mailguard/logger';
import { WorkerModule, type WorkerKind } from './worker.module';

/**
 * Each worker's modules, as in apps/<name>/src/main.ts (importing those starts the worker). Its
 * handlers (STAGE_HANDLERS of its queue) are resolved against them: a missing import fails here.
 */
const KINDS: [WorkerName, WorkerKind][] = [
  ['dns-worker', { queue: 'dns', concurrency: 1, imports: [EngineModule] }],
  ['smtp-worker', { queue: 'smtp', concurrency: 1, imports: [EngineModule, ProberModule] }],
  ['scoring-worker', { queue: 'scoring', concurrency: 1, imports: [EngineModule, StoresModule] }],
  [
    'list-worker',
    {
      queue: 'lists',
      concurrency: 1,
      imports: [EngineModule, StoresModule, WebhooksModule],
      providers: listSweeps({ jobsLost: false }),
    },
  ],
];

/** Global by the libraries' design: Nest's own core, and the roots of BullMQ and TypeORM. */
const LIBRARY_GLOBALS = ['InternalCoreModule', 'BullModule', 'TypeOrmCoreModule'];

describe('a worker module graph', () => {
  it.each(KINDS)('%s: only configuration and logging are global, and Redis is one module', async (name, kind) => {
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', LOG_LEVEL: 'silent' });
    const logger = createLogger(config.log, name);
    // Resolved as at boot, nothing instantiated or connected: every token is found through the imports.
    const app = await NestFactory.createApplicationContext(WorkerModule.forRoot({ name, kind, config, logger }), {
      preview: true,
      abortOnError: false,
      logger: false,
    });
    try {
      const modules = [...app.get(ModulesContainer).values()];
      const globals = modules.filter((module) => module.isGlobal && !LIBRARY_GLOBALS.includes(module.name));
      expect(globals.map((module) => module.name)).toEqual(['ConfigModule', 'LoggingModule']);
      for (const shared of ['RedisModule', 'MetricsModule', 'ResultCacheModule', 'EngineModule'])
        expect(modules.filter((module) => module.name === shared)).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
