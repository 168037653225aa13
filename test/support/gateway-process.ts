import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const MAIN = resolve(__dirname, '../../dist/apps/gateway/src/main.js');

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ExitedProcess {
  code: number | null;
  stdout: string;
  stderr: string;
}

function launch(env: Record<string, string>, cwd: string): ChildProcess {
  // Only what the test names: no DATABASE_URL or REDIS_URL leaks in from the developer's shell.
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', PORT: '0' };
  return spawn(process.execPath, [MAIN], { cwd, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs the built gateway (`npm run build` first) and resolves once it says where it listens. */
export function startGatewayProcess(env: Record<string, string>, cwd: string): Promise<GatewayProcess> {
  const child = launch(env, cwd);
  let output = '';
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return new Promise((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (!match) return;
      child.stdout?.off('data', onData);
      child.stdout?.on('data', (more: Buffer) => (output += more.toString()));
      resolvePromise({
        url: match[1],
        child,
        output: () => output,
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`gateway exited (${code}) before listening:\n${output}`)));
  });
}

/** Runs the gateway expecting it to exit by itself (bad configuration). */
export function runGatewayToExit(env: Record<string, string>, cwd: string): Promise<ExitedProcess> {
  const child = launch(env, cwd);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.once('exit', (code) => done({ code, stdout, stderr })));
}
