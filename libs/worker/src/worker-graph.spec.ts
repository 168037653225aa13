import type { InjectionToken } from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { APP_CONFIG, loadConfig, type WorkerName } from '@mailguard/config';
import { ENGINE, EngineModule, ProberModule, RESULT_CACHE, StoresModule, WebhooksModule } from '@mailguard/core';
import { DomainKnowledge } from '@mailguard/feedback';
import { ListStore, listSweeps, WebhookOutbox } from '@mailguard/lists';
import { createLogger } from '@mailguard/logger';
import { Metrics } from '@mailguard/metrics';
import { ResultStore } from '@mailguard/pipeline';
import { WorkerModule, type WorkerKind } from './worker.module';

/** Each worker's modules and what its handlers inject, as in apps/<name>/src/main.ts. */
const KINDS: [WorkerName, WorkerKind][] = [
  ['dns-worker', { queue: 'dns', concurrency: 1, imports: [EngineModule], handlers: handlers(ENGINE) }],
  [
    'smtp-worker',
    { queue: 'smtp', concurrency: 1, imports: [EngineModule, ProberModule], handlers: handlers(ENGINE, Metrics) },
  ],
  [
    'scoring-worker',
    {
      queue: 'scoring',
      concurrency: 1,
      imports: [EngineModule, StoresModule],
      handlers: handlers(APP_CONFIG, ENGINE, ResultStore, ListStore, RESULT_CACHE, DomainKnowledge, Metrics),
    },
  ],
  [
    'list-worker',
    {
      queue: 'lists',
      concurrency: 1,
      imports: [EngineModule, StoresModule, WebhooksModule],
      handlers: handlers(ENGINE, ListStore, WebhookOutbox),
      providers: listSweeps({ jobsLost: false }),
    },
  ],
];

function handlers(...inject: InjectionToken[]): WorkerKind['handlers'] {
  return { inject, useFactory: () => ({}) };
}

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
