import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WORKER_KINDS, type WorkerKindName } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';

/** `npm run start:all` (bin/start-all.js on the build): every process on a port of its own. */
jest.setTimeout(90_000);

const START_ALL = resolve(__dirname, '../../bin/start-all.js');
/** The contract README documents, spelt out. */
const PORT_VARIABLES: Record<WorkerKindName, string> = {
  'dns-worker': 'DNS_WORKER_PORT',
  'smtp-worker': 'SMTP_WORKER_PORT',
  'scoring-worker': 'SCORING_WORKER_PORT',
  'list-worker': 'LIST_WORKER_PORT',
};
const prefix = `mgtest:${randomBytes(6).toString('hex')}:`;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
  await flushRedisPrefix(prefix);
});

/** `count` distinct ports nobody listens on right now (held together, so they differ). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((done) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => done(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  return ports;
}

interface StartAll {
  output(): string;
  /** Resolves when the output matches, rejects if start:all exits first. */
  waitFor(pattern: RegExp): Promise<void>;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

function startAll(env: Record<string, string>): StartAll {
  const child = spawn(process.execPath, [START_ALL], {
    cwd: mkdtempSync(join(tmpdir(), 'mailguard-start-all-')),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const listener of listeners) listener();
    });
  }
  return {
    output: () => output,
    exited,
    waitFor: (pattern) =>
      new Promise((done, fail) => {
        const check = () => {
          if (!pattern.test(output)) return;
          listeners.delete(check);
          done();
        };
        listeners.add(check);
        check();
        void exited.then((code) => fail(new Error(`start:all exited (${code}) before ${pattern}:\n${output}`)));
      }),
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('npm run start:all', () => {
  it('runs the gateway and each worker kind on the port its own variable names', async () => {
    const [gatewayPort, metricsPort, ...workerPorts] = await freePorts(2 + WORKER_KINDS.length);
    const env: Record<string, string> = { PORT: String(gatewayPort), METRICS_PORT: String(metricsPort) };
    WORKER_KINDS.forEach((kind, index) => (env[PORT_VARIABLES[kind]] = String(workerPorts[index])));
    const running = startAll(env);
    try {
      await running.waitFor(/\[gateway\] .*listening on/);
      for (const kind of WORKER_KINDS) await running.waitFor(new RegExp(`\\[${kind}\\] .*working on queue`));
      expect((await fetch(`http://127.0.0.1:${gatewayPort}/health/live`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
      for (const [index, kind] of WORKER_KINDS.entries()) {
        expect(running.output()).toContain(`[${kind}] MailGuard ${kind} working on queue`);
        const live = await fetch(`http://127.0.0.1:${workerPorts[index]}/health/live`);
        expect(live.status).toBe(200);
      }
      expect(running.output()).not.toMatch(/EADDRINUSE|exited/);
    } finally {
      await running.stop();
    }
  });

  it.each([
    [
      'WORKER_PORT, which would give every worker one port',
      (port: number): Record<string, string> => ({ WORKER_PORT: String(port) }),
      /WORKER_PORT is no longer read: each worker kind has its own port \(DNS_WORKER_PORT, SMTP_WORKER_PORT/,
    ],
    [
      'two worker kinds on one port',
      (port: number): Record<string, string> => ({ DNS_WORKER_PORT: String(port), SMTP_WORKER_PORT: String(port) }),
      /DNS_WORKER_PORT and SMTP_WORKER_PORT are both \d+: processes on one machine need a port each/,
    ],
    [
      'a worker on the metrics port',
      (port: number): Record<string, string> => ({ METRICS_PORT: String(port), SCORING_WORKER_PORT: String(port) }),
      /METRICS_PORT and SCORING_WORKER_PORT are both \d+/,
    ],
    [
      'a worker on the gateway port',
      (port: number): Record<string, string> => ({ PORT: String(port), LIST_WORKER_PORT: String(port) }),
      /PORT and LIST_WORKER_PORT are both \d+/,
    ],
  ])('refuses %s: one line on stderr, exit code 1, no process started', async (_name, variables, message) => {
    const [gatewayPort, metricsPort, port] = await freePorts(3);
    const running = startAll({ PORT: String(gatewayPort), METRICS_PORT: String(metricsPort), ...variables(port) });
    try {
      expect(await running.exited).toBe(1);
      const lines = running.output().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^start:all: Invalid configuration: /);
      expect(lines[0]).toMatch(message);
    } finally {
      await running.stop();
    }
  });
});
