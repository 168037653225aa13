import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadClientConfig, loadConfig, type ClientConfig } from '@mailguard/config';
import type { VerificationResult } from '@mailguard/engine';
import { AppError } from '@mailguard/errors';
import { reportText, selfCheck } from '@mailguard/prober';
import { buildEgress } from '@mailguard/smtp';
import type { DomainInsight, FinderAnswer } from '@mailguard/finder';
import { AdminClient, runAdmin } from './admin';
import { parseCommand, USAGE, UsageError, type Command } from './args';
import { localBackend, remoteBackend, type Backend } from './backend';
import { mapInOrder } from './concurrency';
import { openInput } from './input';
import { serveLocal, serveProxy } from './mcp';
import { resultWriter, textLine } from './output';
import { ProgressBar } from './progress';

type CommandWith<N extends Command['name']> = Extract<Command, { name: N }>;

/** Refusals that mean the invocation itself is wrong (its arguments, input file, key or scope): status 2. */
const USAGE_CODES = new Set(['bad_request', 'payload_too_large', 'unauthorized', 'forbidden']);
const DEFAULT_CONCURRENCY = { local: 16, remote: 200 };
const RANK: Record<VerificationResult['status'], number> = { valid: 0, risky: 1, invalid: 2 };

function warn(message: string): void {
  process.stderr.write(`mailguard: ${message}\n`);
}

/** Waits for stdout to take more when it is full: a 10,000-row run through a slow pipe is not held in memory. */
async function write(text: string): Promise<void> {
  if (text !== '' && !process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
}

function clientConfig(): ClientConfig {
  try {
    return loadClientConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

function backend(remote: string | null): Backend {
  if (remote === null) {
    try {
      return localBackend(loadConfig(), (message) => warn(`warning: ${message}`));
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message);
      throw error;
    }
  }
  const { apiKey } = clientConfig();
  if (!apiKey) throw new UsageError('--remote needs the key in MAILGUARD_API_KEY');
  return remoteBackend(remote, apiKey, (message) => warn(message));
}

async function verify(command: CommandWith<'verify'>): Promise<number> {
  const checker = backend(command.remote);
  const { input, close } = await openInput(command.source, process.stdin);
  try {
    const concurrency = command.concurrency ?? DEFAULT_CONCURRENCY[command.remote === null ? 'local' : 'remote'];
    const writer = resultWriter(command.format, input.columns, input.delimiter);
    if (input.total === 0)
      warn(`warning: ${command.source.kind === 'file' ? command.source.path : 'the input'} holds no address to check`);
    const progress = new ProgressBar(input.total, process.stderr);
    const threshold = command.failOn === null ? Infinity : RANK[command.failOn];
    let count = 0;
    let failed = false;
    await write(writer.start());
    await mapInOrder(
      input.entries,
      concurrency,
      async (entry) => {
        const result = await checker.verify(entry.email);
        progress.tick();
        return result;
      },
      async (entry, result) => {
        failed ||= RANK[result.status] >= threshold;
        await write(writer.row(entry, result, count++));
      },
    );
    progress.done();
    await write(writer.end(count));
    return failed ? 1 : 0;
  } finally {
    checker.close();
    await close();
  }
}

function findText(answer: FinderAnswer): string {
  if (!answer.email) return 'no address found\n';
  const lines = [
    `${answer.email}  confidence ${answer.confidence}${answer.pattern ? `  pattern ${answer.pattern}` : ''}`,
  ];
  if (answer.result) lines.push(`  ${textLine(answer.result)}`);
  for (const other of answer.alternatives) lines.push(`  or ${other.email}  confidence ${other.confidence}`);
  return `${lines.join('\n')}\n`;
}

function domainText(insight: DomainInsight): string {
  const catchAll = insight.catchAll === null ? 'unknown' : insight.catchAll ? 'yes' : 'no';
  const mx = insight.mx.map((record) => `${record.priority} ${record.exchange}`).join(', ') || 'none';
  return [
    `domain      ${insight.domain}`,
    `catch-all   ${catchAll}`,
    `pattern     ${insight.pattern ?? 'unknown'}${insight.pattern ? `  confidence ${insight.confidence}` : ''}`,
    `provider    ${insight.provider ?? 'unknown'}`,
    `mx          ${mx}`,
    '',
  ].join('\n');
}

async function mcp(): Promise<void> {
  const { apiUrl, apiKey } = clientConfig();
  if (apiUrl) {
    if (!apiKey) throw new UsageError('MAILGUARD_API_URL is set but MAILGUARD_API_KEY is not: the service needs a key');
    return serveProxy(apiUrl, apiKey);
  }
  if (apiKey)
    process.stderr.write(
      'mailguard mcp: MAILGUARD_API_KEY is ignored without MAILGUARD_API_URL (running the engine here, unmetered)\n',
    );
  try {
    return await serveLocal(loadConfig());
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** The version of the package this build belongs to (its package.json, found upwards from the build). */
function version(): string {
  for (let dir = __dirname; ; dir = join(dir, '..')) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'mailguard' && manifest.version) return manifest.version;
    } catch {
      // Not in this directory: one up.
    }
    if (dir === join(dir, '..')) return 'unknown';
  }
}

/** docs/production.md: the prober's self-check, as text or JSON; 1 when a check fails. */
async function doctor(command: CommandWith<'doctor'>): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  const report = await selfCheck(config, config.prober.egress.map(buildEgress));
  await write(command.json ? `${JSON.stringify(report, null, 2)}\n` : reportText(report));
  return report.ok ? 0 : 1;
}

/** docs/operations.md#operator-console: the console of the service at MAILGUARD_API_URL, with ADMIN_TOKEN. */
async function admin(command: CommandWith<'admin'>): Promise<number> {
  const { apiUrl, adminToken } = clientConfig();
  if (!apiUrl) throw new UsageError('admin needs the service in MAILGUARD_API_URL');
  if (!adminToken) throw new UsageError("admin needs the operators' token in ADMIN_TOKEN");
  await write(await runAdmin(new AdminClient(apiUrl, adminToken), command.action, command.json));
  return 0;
}

/** Runs a command and gives the exit status; mcp keeps the process alive on its own. */
async function run(command: Command): Promise<number> {
  switch (command.name) {
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case 'version':
      process.stdout.write(`mailguard ${version()}\n`);
      return 0;
    case 'mcp':
      await mcp();
      return 0;
    case 'verify':
      return verify(command);
    case 'doctor':
      return doctor(command);
    case 'admin':
      return admin(command);
    case 'find': {
      const finder = backend(command.remote);
      const answer = await finder.find(command.query).finally(() => finder.close());
      await write(command.format === 'json' ? `${JSON.stringify(answer, null, 2)}\n` : findText(answer));
      return 0;
    }
    case 'domain': {
      const finder = backend(command.remote);
      const insight = await finder.domain(command.domain).finally(() => finder.close());
      await write(command.format === 'json' ? `${JSON.stringify(insight, null, 2)}\n` : domainText(insight));
      return 0;
    }
  }
}

/** Why an input file cannot be read, in words (the system's code alone means little to a newcomer). */
const UNREADABLE: Record<string, string> = {
  ENOENT: 'there is no such file',
  EISDIR: 'it is a folder; give a CSV, or a file of one address per line',
  EACCES: 'permission denied',
};

function statusOf(error: unknown): number {
  if (error instanceof UsageError) {
    warn(`${error.message}\nRun "mailguard --help" for usage.`);
    return 2;
  }
  if (error instanceof AppError) {
    warn(error.message);
    return USAGE_CODES.has(error.code) ? 2 : 1;
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const unreadable = code ? UNREADABLE[code] : undefined;
  if (unreadable) {
    warn(`cannot read ${(error as NodeJS.ErrnoException).path ?? 'the input'}: ${unreadable}`);
    return 2;
  }
  warn(error instanceof Error ? error.message : String(error));
  return 1;
}

// A reader that stops early (`| head`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => process.exit(error.code === 'EPIPE' ? 0 : 1));

Promise.resolve()
  .then(() => run(parseCommand(process.argv.slice(2))))
  .then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      // Sockets and timers of an interrupted run would keep the process alive.
      process.exit(statusOf(error));
    },
  );
