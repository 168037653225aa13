#!/usr/bin/env node
// `npm run start:all`: the gateway and the four workers as separate processes (DATABASE_URL and
// REDIS_URL required). Output is prefixed by process; a signal stops them all; if one dies, all stop.
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const { assertPortsApart, ConfigError, loadConfig } = require(
  join(root, 'dist', 'libs', 'foundation', 'config', 'src'),
);

if (!process.env.REDIS_URL || !process.env.DATABASE_URL) {
  process.stderr.write(
    'start:all: set DATABASE_URL and REDIS_URL (without them, `npm start` runs everything in one process)\n',
  );
  process.exit(1);
}
// Checked before anything starts: every process would refuse the same configuration, and two on
// one port would stop them all.
try {
  assertPortsApart(loadConfig());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`start:all: ${error.message}\n`);
  process.exit(1);
}

const apps = ['gateway', 'dns-worker', 'smtp-worker', 'scoring-worker', 'list-worker'];
// One machine, no load balancer: the gateway has nobody to wait for before it stops accepting.
const env = { ...process.env, SHUTDOWN_DELAY_MS: process.env.SHUTDOWN_DELAY_MS || '0' };
const children = apps.map((app) => {
  const child = spawn(process.execPath, [join(root, 'dist', 'apps', app, 'src', 'main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop();
      for (const line of lines) process.stdout.write(`[${app}] ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    process.stdout.write(`[${app}] exited (${signal ?? code})\n`);
    stopAll();
  });
  return child;
});

let stopping = false;
function stopAll() {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
process.once('SIGINT', stopAll);
process.once('SIGTERM', stopAll);
