import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { WORKER_PORT_VARIABLES } from '@mailguard/config';
import { leaksIn } from './log-leaks';

/** The build, whether this file runs from the sources (Jest) or from dist/ itself (benchmarks). */
export const DIST = __dirname.includes(`${sep}dist${sep}`)
  ? resolve(__dirname, '../..')
  : resolve(__dirname, '../../dist');
const MAIN = join(DIST, 'apps/gateway/src/main.js');
const WORKER_MAIN = (kind: WorkerKindName) => join(DIST, `apps/${kind}/src/main.js`);

export type WorkerKindName = 'dns-worker' | 'smtp-worker' | 'scoring-worker' | 'list-worker';
export const WORKER_KINDS: WorkerKindName[] = ['dns-worker', 'smtp-worker', 'scoring-worker', 'list-worker'];

/** Every port a process opens left to the system (0), so that tests and benchmarks run side by side. */
export const ANY_FREE_PORTS: Record<string, string> = {
  PORT: '0',
  METRICS_PORT: '0',
  ...Object.fromEntries(Object.values(WORKER_PORT_VARIABLES).map((variable) => [variable, '0'])),
};

export interface RunningProcess {
  url: string;
  /** Its Prometheus page: the gateway's on METRICS_PORT, a worker's on its own port. */
  metrics: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /**
   * Ends the process and resolves with its exit code once it has exited; rejects when its output
   * showed an address, a key or a credential (tests/support/log-leaks.ts), so that every suite
   * checks the logs of every process it ran.
   */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ExitedProcess {
  code: number | null;
  stdout: string;
  stderr: string;
}

function launch(env: Record<string, string>, cwd: string, main = MAIN): ChildProcess {
  // Only what the test names: no DATABASE_URL or REDIS_URL leaks in from the developer's shell. No
  // load balancer to wait for at SIGTERM, unless the test names a delay.
  const base = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_LEVEL: 'warn',
    SHUTDOWN_DELAY_MS: '0',
    ...ANY_FREE_PORTS,
  };
  return spawn(process.execPath, [main], { cwd, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Runs a built process and resolves once its output matches `ready`: its first group is the process's
 * url, its second the url of its Prometheus page (else the first one's /metrics).
 */
function startProcess(env: Record<string, string>, cwd: string, main: string, ready: RegExp): Promise<RunningProcess> {
  const child = launch(env, cwd, main);
  let output = '';
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return new Promise((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (!match) return;
      child.stdout?.off('data', onData);
      child.stdout?.on('data', (more: Buffer) => (output += more.toString()));
      resolvePromise({
        url: match[1] ?? '',
        metrics: match[2] ?? `${match[1]}/metrics`,
        child,
        output: () => output,
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          const code = await exited;
          const leaks = leaksIn(output);
          if (leaks.length > 0) throw new Error(`${main} printed what its logs must never show:\n${leaks.join('\n')}`);
          return code;
        },
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`${main} exited (${code}) before it was ready:\n${output}`)));
  });
}

/** Runs the built gateway (`npm run build` first) and resolves once it says where it listens. */
export function startGatewayProcess(env: Record<string, string>, cwd: string): Promise<RunningProcess> {
  return startProcess(env, cwd, MAIN, /listening on (http:\/\/[^\s]+) .*metrics on (http:\/\/[^\s]+)\n/);
}

/** Runs one built worker process and resolves once it takes jobs. */
export function startWorkerProcess(
  kind: WorkerKindName,
  env: Record<string, string>,
  cwd: string,
): Promise<RunningProcess> {
  return startProcess(env, cwd, WORKER_MAIN(kind), /working on queue.*metrics on (http:\/\/[^\s]+)/);
}

/**
 * The first whole line the process writes from now on (stdout or stderr) that `accept` takes; an
 * error once `timeoutMs` has passed (the test's bound on the wait) or the process has exited.
 */
export function nextLine(
  running: RunningProcess,
  accept: (line: string) => boolean,
  timeoutMs = 60_000,
): Promise<string> {
  const { child } = running;
  return new Promise((resolvePromise, reject) => {
    const partial = { stdout: '', stderr: '' };
    const listeners = (['stdout', 'stderr'] as const).map((stream) => {
      const onData = (chunk: Buffer) => {
        const lines = (partial[stream] + chunk.toString()).split('\n');
        partial[stream] = lines.pop() ?? '';
        const found = lines.find(accept);
        if (found !== undefined) finish(() => resolvePromise(found));
      };
      child[stream]?.on('data', onData);
      return () => child[stream]?.off('data', onData);
    });
    const onExit = () =>
      finish(() => reject(new Error(`the process exited before the line came:\n${running.output()}`)));
    const timer = setTimeout(
      () => finish(() => reject(new Error(`no such line within ${timeoutMs} ms:\n${running.output()}`))),
      timeoutMs,
    );
    child.once('exit', onExit);
    function finish(settle: () => void) {
      clearTimeout(timer);
      child.off('exit', onExit);
      for (const remove of listeners) remove();
      settle();
    }
  });
}

/** Runs a built process expecting it to exit by itself (bad configuration). */
function runToExit(env: Record<string, string>, cwd: string, main: string): Promise<ExitedProcess> {
  const child = launch(env, cwd, main);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.once('exit', (code) => done({ code, stdout, stderr })));
}

/** Runs the gateway (by default the build's) expecting it to exit by itself (bad configuration). */
export function runGatewayToExit(env: Record<string, string>, cwd: string, main = MAIN): Promise<ExitedProcess> {
  return runToExit(env, cwd, main);
}

/** Runs one worker expecting it to exit by itself (bad configuration). */
export function runWorkerToExit(
  kind: WorkerKindName,
  env: Record<string, string>,
  cwd: string,
): Promise<ExitedProcess> {
  return runToExit(env, cwd, WORKER_MAIN(kind));
}

export interface TestCluster {
  gateway: RunningProcess;
  /** The gateway, and every worker when distributed. */
  processes: RunningProcess[];
  /** Those that open SMTP connections: the gateway in one process, the smtp-worker over BullMQ. */
  probers: RunningProcess[];
}

/** The gateway alone (in-process queues), or with one worker of each kind (BullMQ: `env` names REDIS_URL). */
export async function startCluster(
  env: Record<string, string>,
  distributed: boolean,
  workDir: () => string,
): Promise<TestCluster> {
  const gateway = await startGatewayProcess(env, workDir());
  const workers = distributed
    ? await Promise.all(WORKER_KINDS.map((kind) => startWorkerProcess(kind, env, workDir())))
    : [];
  const probers = distributed ? workers.filter((_, index) => WORKER_KINDS[index] === 'smtp-worker') : [gateway];
  return { gateway, processes: [gateway, ...workers], probers };
}

/** What a running gateway holds: its open descriptors, and the uploads it has staged (a folder each). */
export interface Holdings {
  descriptors(): number;
  stagedUploads(): number;
  /** Polls (another process's descriptors have no event to wait on) until nothing is staged and at most `baseline` descriptors are open, or `ms` pass. */
  settle(baseline: number, ms?: number): Promise<void>;
}

/** `tmp`: the gateway's TMPDIR, where its staging folder `mailguard-uploads-<pid>` lives. */
export function holdings(gateway: RunningProcess, tmp = tmpdir()): Holdings {
  const pid = gateway.child.pid;
  const stagingDir = join(tmp, `mailguard-uploads-${pid}`);
  const held: Holdings = {
    descriptors: () => readdirSync(`/proc/${pid}/fd`).length,
    stagedUploads: () => {
      try {
        return readdirSync(stagingDir).length;
      } catch {
        return 0;
      }
    },
    async settle(baseline, ms = 5_000) {
      const until = Date.now() + ms;
      while (Date.now() < until && (held.stagedUploads() > 0 || held.descriptors() > baseline))
        await new Promise((resolve) => setTimeout(resolve, 50));
    },
  };
  return held;
}

/**
 * Resolves with the lines of the processes' output (all of them together) that match `pattern`
 * once there are `count` of them, lines written so far included; rejects if one exits first.
 */
export function waitForLines(
  processes: RunningProcess | RunningProcess[],
  pattern: RegExp,
  count = 1,
): Promise<string[]> {
  const running = Array.isArray(processes) ? processes : [processes];
  return new Promise((resolve, reject) => {
    const streams = running.flatMap(({ child }) => [child.stdout, child.stderr]);
    const done = () => {
      for (const stream of streams) stream?.off('data', check);
      for (const { child } of running) child.off('exit', exited);
    };
    const check = () => {
      const lines = running.flatMap((process) =>
        process
          .output()
          .split('\n')
          .filter((line) => pattern.test(line)),
      );
      if (lines.length < count) return;
      done();
      resolve(lines);
    };
    const exited = (code: number | null) => {
      done();
      reject(new Error(`a process exited (${code}) with ${pattern} seen fewer than ${count} times`));
    };
    for (const stream of streams) stream?.on('data', check);
    for (const { child } of running) child.once('exit', exited);
    check();
  });
}
