import { ConfigError, loadConfig } from '@mailguard/config';
import { createEngine, type VerificationResult } from '@mailguard/engine';
import { runConcurrently } from './concurrency';
import { ProgressBar } from './progress';

const USAGE = `Usage: mailguard verify <email...> [--json] [--concurrency N]

Checks each address (syntax, domain, MX, SMTP mailbox ping, disposable, role, catch-all, domain age,
SPF/DKIM/DMARC) and prints its verdict. --json prints one JSON array of results, in input order.
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
  return [result.email, result.status, result.reason, `score ${result.score}`, ...extra].join('  ');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const engine = createEngine(config);
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
