import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { loadConfig } from '@mailguard/config';
import { createLogger } from '@mailguard/logger';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import { refused } from '../support/ports';

/**
 * The gateway's module graph as built (dist/: the widget bundle is there), in this process: it
 * resolves, serves, and `app.close()` lets go of everything it opened — no socket, server or
 * connection is left behind, whichever driver runs the pipeline. Tokens and classes come from the
 * same build as the modules, or they would not be the same tokens.
 */
const DIST = resolve(__dirname, '../../dist');
const load = <T>(path: string): Promise<T> => import(join(DIST, path)) as Promise<T>;

jest.setTimeout(60_000);

/** Sockets and servers this process holds (timers are left out: unref'd ones are harmless). */
function handles(): string[] {
  return process.getActiveResourcesInfo().filter((name) => /TCP|Pipe|UDP|TLS/.test(name));
}

/** What `after` holds beyond `before`: what was opened and not closed in between. */
function opened(before: string[], after: string[]): string[] {
  const left = [...before];
  return after.filter((name) => {
    const index = left.indexOf(name);
    if (index < 0) return true;
    left.splice(index, 1);
    return false;
  });
}

/**
 * What `before` lacks once the closed sockets are gone: a socket leaves the active list a few turns
 * after its connection ended (pg resolves `end()` at the stream's end, not its handle's close), so
 * this waits for that, up to 5 s — a socket still open then was never let go.
 */
async function leftOpen(before: string[]): Promise<string[]> {
  const deadline = performance.now() + 5_000;
  let left = opened(before, handles());
  while (left.length > 0 && performance.now() < deadline) {
    await new Promise((done) => setTimeout(done, 50));
    left = opened(before, handles());
  }
  return left;
}

/** One request on a connection of its own, closed after the answer (or kept alive by `agent`). */
function status(url: string, agent: Agent | false = false): Promise<number> {
  return new Promise((done, fail) => {
    let code = 0;
    const request = get(url, { agent }, (res) => {
      code = res.statusCode ?? 0;
      res.resume();
    });
    request.once('error', fail);
    request.once('close', () => done(code));
  });
}

describe.each([
  ['embedded Postgres, in-process pipeline', false],
  ['Postgres and Redis, BullMQ pipeline', true],
])('gateway module graph (%s)', (_name, distributed) => {
  const prefix = `mglifecycle:${randomBytes(6).toString('hex')}:`;
  let database: TestDatabase | null = null;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mailguard-lifecycle-'));
    if (distributed) database = await createTestDatabase();
  });

  afterAll(async () => {
    await database?.drop();
    if (distributed) await flushRedisPrefix(prefix);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resolves, serves, and closing the app releases every resource', async () => {
    const { GatewayModule } = await load<typeof import('../../apps/gateway/src/gateway.module')>(
      'apps/gateway/src/gateway.module.js',
    );
    const { REDIS } = await load<typeof import('@mailguard/core')>('libs/composition/core/src/index.js');
    const { MetricsServer } = await load<typeof import('../../apps/gateway/src/health/metrics')>(
      'apps/gateway/src/health/metrics.js',
    );
    const { CHECK_PIPELINE, InProcessPipeline, BullMqPipeline } = await load<typeof import('@mailguard/queue')>(
      'libs/platform/queue/src/index.js',
    );
    const env = distributed ? { DATABASE_URL: database?.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } : {};
    const loaded = loadConfig({ PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'silent', ...env });
    const config = { ...loaded, database: { ...loaded.database, embeddedDataDir: dataDir } };
    const before = handles();

    const app = await NestFactory.create<NestFastifyApplication>(
      GatewayModule.forRoot({ config, logger: createLogger(config.log, 'test') }),
      new FastifyAdapter(),
      {
        logger: false,
        abortOnError: false,
      },
    );
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    expect(await status(`http://127.0.0.1:${port}/health/ready`)).toBe(200);
    expect(app.get(CHECK_PIPELINE)).toBeInstanceOf(distributed ? BullMqPipeline : InProcessPipeline);
    const source = app.get(DataSource);
    expect(source.isInitialized).toBe(true);
    const databasePort = Number(new URL(source.options.type === 'postgres' ? (source.options.url as string) : '').port);
    const redis = app.get<Redis | null>(REDIS);
    expect(redis === null).toBe(!distributed);
    // The metrics on a port of their own, not the API's; a scraper keeps its connection open between scrapes.
    const metricsUrl = app.get(MetricsServer).url;
    const metricsPort = Number(new URL(metricsUrl).port);
    expect(await status(metricsUrl, new Agent({ keepAlive: true }))).toBe(200);
    expect(await status(`http://127.0.0.1:${port}/metrics`)).toBe(404);

    await app.close();
    expect(source.isInitialized).toBe(false);
    if (distributed) expect(redis?.status).toBe('end');
    // The embedded server's socket is closed with the app.
    else expect(await refused(databasePort)).toBe(true);
    expect(await refused(port)).toBe(true);
    expect(await refused(metricsPort)).toBe(true);
    // Sockets of an earlier test in this worker (fetch's keep-alive) may close meanwhile: only new ones count.
    expect(await leftOpen(before)).toEqual([]);
  });
});
