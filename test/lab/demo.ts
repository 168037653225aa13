import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLab } from './lab';
import { loadScenario } from './scenario';

/**
 * `npm run demo`: a first check in two minutes, with nothing but Node. Starts the mail lab (DNS and
 * mail servers on 127.x that behave like the internet's), the service on embedded defaults pointed
 * at it through its configuration, signs up a demo account, and prints the key, three curl lines
 * that work as printed, and where the dashboard and the docs are. Everything lives in a temporary
 * folder, removed at Ctrl-C.
 */
const GATEWAY = resolve(__dirname, '../../apps/gateway/src/main.js');
const DEMO_ACCOUNT = 'demo@catchall.test';

/** Stops what the demo started; set once there is something to stop. */
let stop: (code: number) => Promise<void> = async (code) => process.exit(code);

async function main(): Promise<void> {
  const lab = await startLab(loadScenario());
  const dir = mkdtempSync(join(tmpdir(), 'mailguard-demo-'));
  const log = join(dir, 'gateway.log');
  const output = openSync(log, 'a');
  // The service as `npm start` runs it (embedded Postgres and queues), only its DNS, mail port, RDAP
  // and avatar look-ups pointed at the lab; a DATABASE_URL or REDIS_URL of the shell is not taken.
  const { DATABASE_URL: _database, REDIS_URL: _redis, ...shell } = process.env;
  const gateway = spawn(process.execPath, [GATEWAY], {
    cwd: dir,
    env: { ...shell, ...lab.env, PORT: process.env.PORT ?? '3000', SMTP_HELO_NAME: 'demo.mailguard.test' },
    stdio: ['ignore', 'pipe', output],
  });
  stop = async (code: number) => {
    gateway.kill('SIGTERM');
    await new Promise((done) => (gateway.exitCode === null ? gateway.once('exit', done) : done(null)));
    await lab.stop();
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  };
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));

  const url = await new Promise<string>((ready, fail) => {
    let seen = '';
    gateway.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+?)[\s(]/.exec(seen);
      if (match) ready(match[1]);
    });
    gateway.once('exit', (code) => fail(new Error(`the service stopped (exit ${code}); see ${log}`)));
  });
  const signup = await fetch(`${url}/v1/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: DEMO_ACCOUNT }),
  });
  const account = (await signup.json()) as { apiKey?: string; account?: { credits: number }; error?: string };
  if (!account.apiKey) throw new Error(`the demo sign-up was refused: ${account.error ?? signup.status}`);
  const key = account.apiKey;
  const out = process.stdout;
  out.write(`
MailGuard is running at ${url}, pointed at the mail lab (${lab.world.servers.length} mail servers, DNS at ${lab.dnsServer}).
Demo account ${DEMO_ACCOUNT}: ${account.account?.credits ?? 0} credits, API key

  ${key}

Paste these into another shell:

  curl -s -H 'X-API-Key: ${key}' ${url}/v1/email-validation/john.doe@acme.test
  curl -s -H 'X-API-Key: ${key}' ${url}/v1/email-validation/nobody@acme.test
  curl -s -X POST -H 'X-API-Key: ${key}' -H 'Content-Type: application/json' -d '{"emails":["temp@mailinator.com","info@catchall.test"]}' ${url}/v1/email-validation/batch

Dashboard: ${url}/dashboard/   API docs: ${url}/docs   Service log: ${log}
The lab's addresses: test/lab/scenarios/default.json. Ctrl-C stops the service and the lab.
`);
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
  void stop(1);
});
