import { ConfigError, loadConfig, type AppConfig } from '@mailguard/config';
import { createEngine, type VerificationResult } from '@mailguard/engine';
import { runConcurrently } from './concurrency';
import { serveLocal, serveProxy } from './mcp';
import { ProgressBar } from './progress';

const USAGE = `Usage: mailguard verify <email...> [--json] [--concurrency N]
       mailguard mcp

verify: checks each address (syntax, domain, MX, SMTP mailbox ping, disposable, role, catch-all, domain
age, SPF/DKIM/DMARC) and prints its verdict. --json prints one JSON array of results, in input order.
mcp: serves the MailGuard tools to an MCP client on stdio: with MAILGUARD_API_URL and MAILGUARD_API_KEY
through that service (metered like its REST API), else with the engine in this process (unmetered).
Honours the variables of API.md §8 (DNS_SERVERS, SMTP_PORT, SMTP_HELO_NAME, ALLOW_PRIVATE_MX, …).
`;

function fail(message: string): never {
  process.stderr.write(`mailguard: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): { emails: string[]; json: boolean; concurrency: number } {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === undefined) {
    process.stdout.write(USAGE);
    process.exit(command === undefined ? 2 : 0);
  }
  if (command !== 'verify') fail(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  const emails: string[] = [];
  let json = false;
  let concurrency = 16;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--json') json = true;
    else if (arg === '--concurrency') {
      concurrency = Number(rest[++i]);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 500) fail('--concurrency takes a whole number from 1 to 500');
    } else emails.push(arg);
  }
  if (emails.length === 0) fail(`no address given\n\n${USAGE}`);
  return { emails, json, concurrency };
}

function line(result: VerificationResult): string {
  const extra = [
    result.confidence !== null ? `confidence ${result.confidence}` : null,
    result.suggestion ? `did you mean ${result.suggestion}?` : null,
  ].filter(Boolean);
  return [result.email, result.status, result.subStatus ? `${result.reason} (${result.subStatus})` : result.reason, `score ${result.score}`, ...extra].join('  ');
}

function config(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
}

/** `mailguard mcp`: the service's tools when one is named, else the engine here. */
async function mcp(argv: string[]): Promise<void> {
  if (argv.length > 0) fail(`mcp takes no arguments (it reads MAILGUARD_API_URL and MAILGUARD_API_KEY)\n\n${USAGE}`);
  const url = process.env.MAILGUARD_API_URL?.trim();
  const key = process.env.MAILGUARD_API_KEY?.trim();
  if (url) {
    if (!key) fail('MAILGUARD_API_URL is set but MAILGUARD_API_KEY is not: the service needs a key');
    if (!/^https?:\/\/[^\s]+$/i.test(url)) fail(`MAILGUARD_API_URL must be an http(s) URL, got ${JSON.stringify(url)}`);
    return serveProxy(url, key);
  }
  if (key) process.stderr.write('mailguard mcp: MAILGUARD_API_KEY is ignored without MAILGUARD_API_URL (running the engine here, unmetered)\n');
  return serveLocal(config());
}

async function main(): Promise<void> {
  if (process.argv[2] === 'mcp') return mcp(process.argv.slice(3));
  const args = parseArgs(process.argv.slice(2));
  const engine = createEngine(config());
  engine.gate.observe({ expired: (host) => process.stderr.write(`mailguard: warning: an MX slot lease for ${host} expired (a session never gave its slot back)\n`) });
  const progress = new ProgressBar(args.emails.length, process.stderr);
  const results = await runConcurrently(args.emails, args.concurrency, async (email) => {
    const result = await engine.verify(email);
    progress.tick();
    return result;
  });
  progress.done();
  if (args.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else for (const result of results) process.stdout.write(`${line(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`mailguard: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
