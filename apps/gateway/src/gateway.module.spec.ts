import { ModulesContainer, NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { loadConfig } from '@mailguard/config';
import { createLogger } from '@mailguard/logger';
import { GatewayModule } from './gateway.module';

/**
 * The gateway's module graph, resolved as at boot but in preview (nothing is instantiated or
 * connected): every injected token is found through the imports of the module that injects it.
 */
async function graph(env: Record<string, string>): Promise<INestApplicationContext> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  const logger = createLogger(config.log, 'gateway');
  return NestFactory.createApplicationContext(GatewayModule.forRoot({ config, logger }), {
    preview: true,
    // A token no import exports fails the test with Nest's message rather than ending the process.
    abortOnError: false,
    logger: false,
  });
}

/**
 * Global by the libraries' design, whatever imports them: Nest's own core, and the roots of BullMQ,
 * TypeORM and Bull Board, which hold their connection options for their feature modules.
 */
const LIBRARY_GLOBALS = ['InternalCoreModule', 'BullModule', 'TypeOrmCoreModule', 'BullBoardRootModule'];

/** The names of the modules of the graph, one per instance. */
function modules(app: INestApplicationContext): { name: string; global: boolean }[] {
  return [...app.get(ModulesContainer).values()].map((module) => ({ name: module.name, global: module.isGlobal }));
}

describe('the gateway module graph', () => {
  it.each([
    ['embedded', {}],
    ['distributed', { REDIS_URL: 'redis://127.0.0.1:6379', ADMIN_TOKEN: 'a'.repeat(32) }],
  ])('%s: only configuration and logging are global, and every shared module is one instance', async (_, env) => {
    const app = await graph(env);
    try {
      const all = modules(app);
      const globals = all.filter((module) => module.global && !LIBRARY_GLOBALS.includes(module.name));
      expect(globals.map((module) => module.name)).toEqual(['ConfigModule', 'LoggingModule']);
      const names = all.map((module) => module.name);
      for (const shared of [
        'RedisModule',
        'MetricsModule',
        'ResultCacheModule',
        'DatabaseModule',
        'StoresModule',
        'EngineModule',
        'PipelineModule',
        'QueueModule',
        'ValidationModule',
        'FinderModule',
        'ListsModule',
        'AccountsModule',
        'WidgetModule',
        'McpModule',
      ])
        expect(names.filter((name) => name === shared)).toEqual([shared]);
    } finally {
      await app.close();
    }
  });
});
