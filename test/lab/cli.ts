import { startLab } from './lab';
import { loadScenario } from './scenario';

/**
 * `npm run lab`: starts the mail lab and prints the variables that point MailGuard at it.
 * Options: --scenario <file.json>, --network <127.x>, --latency <ms>;
 * ports from LAB_SMTP_PORT (25), LAB_DNS_PORT (53), LAB_HTTP_PORT (80) — use high ports when not root.
 */
function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function port(variable: string, fallback: number): number {
  const value = Number(process.env[variable] ?? fallback);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    process.stderr.write(`lab: ${variable} must be a port number\n`);
    process.exit(1);
  }
  return value;
}

async function main(): Promise<void> {
  const scenario = loadScenario(option('scenario'));
  const latency = option('latency');
  if (latency !== undefined) scenario.defaults = { ...scenario.defaults, latencyMs: Number(latency) };
  const lab = await startLab(scenario, {
    network: option('network') ?? '127.77',
    smtpPort: port('LAB_SMTP_PORT', 25),
    dnsPort: port('LAB_DNS_PORT', 53),
    httpPort: port('LAB_HTTP_PORT', 80),
    socksPort: port('LAB_SOCKS_PORT', 1080),
  });
  const out = process.stdout;
  out.write(
    `MailGuard mail lab: ${lab.world.servers.length} mail servers, DNS at ${lab.dnsServer}, RDAP/avatars at ${lab.http.baseUrl}\n`,
  );
  out.write('Point the service at it with:\n');
  for (const [key, value] of Object.entries(lab.env)) out.write(`  export ${key}=${value}\n`);
  out.write(`SOCKS5 proxy for SMTP_PROXY: ${lab.socks.url}\n`);
  out.write('Mail servers:\n');
  for (const server of lab.world.servers)
    out.write(
      `  ${server.name.padEnd(32)} ${server.spec.down || server.spec.unresolvable ? '(no listener)' : server.ip}\n`,
    );
  out.write('Ctrl-C stops the lab.\n');
  const stop = () => void lab.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`lab: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
