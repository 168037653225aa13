import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Redis and Postgres servers of a test's own, on ports of their own, for tests that stop and start
 * them: the shared servers on 6379 and 5432 are never touched. Each is stopped and its directory
 * removed by `destroy()`, and again when the test process exits, whatever happened before.
 */
export interface PrivateServer {
  url: string;
  port: number;
  /** Stops the server; its data stays for the next start (a restart, not a fresh server). */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

const cleanups = new Set<() => void>();
process.once('exit', () => {
  for (const cleanup of cleanups) cleanup();
});

/** A port nobody listens on right now (the OS's choice). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits until the port takes (or, with `open` false, refuses) connections, at most `timeoutMs`. */
async function waitForPort(port: number, open: boolean, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1');
    });
    if (listening === open) return;
    if (Date.now() > until) throw new Error(`port ${port} still ${open ? 'closed' : 'open'} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A redis-server with an append-only file in a temporary directory, so a restart keeps the queues
 * as a production Redis would.
 */
export async function startPrivateRedis(): Promise<PrivateServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mailguard-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const kill = () => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  cleanups.add(kill);
  const server: PrivateServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      const args = [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
      ];
      child = spawn('redis-server', args, { stdio: 'ignore' });
      await waitForPort(port, true);
    },
    async stop() {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
      child = null;
    },
    async destroy() {
      await server.stop();
      kill();
      cleanups.delete(kill);
    },
  };
  await server.start();
  return server;
}

/** The newest installed PostgreSQL's programs (PG_BIN overrides). */
function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  const found = versions
    .map((version) => `/usr/lib/postgresql/${version}/bin`)
    .find((bin) => existsSync(join(bin, 'pg_ctl')));
  if (!found) throw new Error('no PostgreSQL programs under /usr/lib/postgresql (set PG_BIN)');
  return found;
}

/** Runs a Postgres program as the postgres user (initdb and postgres refuse to run as root). */
function asPostgres(bin: string, program: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [command, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]]
    : [join(bin, program), args];
  const run = spawnSync(command, argv, { encoding: 'utf8' });
  if (run.status !== 0)
    throw new Error(`${program} ${args.join(' ')} failed (${run.status}): ${run.stderr}${run.stdout}`);
}

/**
 * A PostgreSQL cluster of its own in a temporary directory (trust authentication, user postgres,
 * database `test`). `stop()` is an immediate shutdown: what a crash or a pulled plug looks like.
 */
export async function startPrivatePostgres(): Promise<PrivateServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'mailguard-postgres-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0)
    chownSync(dir, Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()), -1);
  const port = await freePort();
  asPostgres(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  let running = false;
  const kill = () => {
    if (running)
      spawnSync('runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  };
  cleanups.add(kill);
  const server: PrivateServer = {
    url: `postgres://postgres@127.0.0.1:${port}/test`,
    port,
    async start() {
      asPostgres(bin, 'pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
      running = true;
      await waitForPort(port, true);
    },
    async stop() {
      if (!running) return;
      asPostgres(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      running = false;
      await waitForPort(port, false);
    },
    async destroy() {
      kill();
      running = false;
      cleanups.delete(kill);
    },
  };
  try {
    await server.start();
    asPostgres(bin, 'createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'test']);
  } catch (error) {
    await server.destroy();
    throw error;
  }
  return server;
}
