import { LabDnsServer } from './dns-server';
import { LabHttpServer } from './http-server';
import { LabMailRelay } from './mail-relay';
import type { Scenario } from './scenario';
import { LabSmtpServer, type SmtpStats } from './smtp-server';
import { LabSocksServer } from './socks-server';
import { World } from './world';

export interface LabOptions {
  /** First two octets of the lab's block in 127/8; default: a random one, so parallel labs never meet. */
  network?: string;
  smtpPort?: number;
  dnsPort?: number;
  httpPort?: number;
  socksPort?: number;
  /** Latency of the RDAP/avatar server. */
  httpLatencyMs?: number;
  /** Source address of the SOCKS proxy's upstream connections (its exit address); default: the system's choice. */
  socksOutboundAddress?: string;
  /** Keep every command in the SMTP servers' stats (default true; a million-address bench would hoard them). */
  recordCommands?: boolean;
}

export interface Lab {
  world: World;
  dns: LabDnsServer;
  http: LabHttpServer;
  /** A SOCKS5 proxy (user `lab`, password `lab-secret`) for testing SMTP_PROXY. */
  socks: LabSocksServer;
  /**
   * The service's own outgoing mail relay: keeps every message (`relay.messages`, `relay.waitFor`).
   * Not in `env`: the service needs `PUBLIC_URL` with it; add `relay.env` where mail is wanted.
   */
  relay: LabMailRelay;
  /** `DNS_SERVERS` value for the service. */
  dnsServer: string;
  /** The docs/configuration.md variables that point MailGuard at this lab. */
  env: Record<string, string>;
  smtpPort: number;
  ipOf(host: string): string;
  smtp(host: string): LabSmtpServer;
  stats(host: string): SmtpStats;
  resetStats(): void;
  stop(): Promise<void>;
}

function randomNetwork(): string {
  return `127.${100 + Math.floor(Math.random() * 150)}`;
}

/** Starts DNS, every SMTP server and the HTTP server of a scenario; all on loopback addresses. */
export async function startLab(scenario: Scenario, options: LabOptions = {}): Promise<Lab> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await startOnce(scenario, { ...options, network: options.network ?? randomNetwork() });
    } catch (error) {
      // A random block already in use by another lab: pick another one.
      const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!inUse || options.network || attempt >= 5) throw error;
    }
  }
}

async function startOnce(scenario: Scenario, options: LabOptions & { network: string }): Promise<Lab> {
  const world = new World(scenario, options.network);
  const smtpPort = options.smtpPort ?? 2525;
  const dns = new LabDnsServer(world, `${options.network}.0.53`, options.dnsPort ?? 5353);
  const http = new LabHttpServer(
    world,
    `${options.network}.0.80`,
    options.httpPort ?? 8080,
    options.httpLatencyMs ?? 0,
  );
  const socks = new LabSocksServer(
    `${options.network}.0.108`,
    options.socksPort ?? 1080,
    { username: 'lab', password: 'lab-secret' },
    { outboundAddress: options.socksOutboundAddress },
  );
  const relay = new LabMailRelay(`${options.network}.0.26`);
  const smtpServers = new Map(
    world.servers.map((server) => [
      server.name,
      new LabSmtpServer(world, server, smtpPort, options.recordCommands ?? true),
    ]),
  );
  const started: Array<{ stop(): Promise<void> }> = [];
  try {
    for (const part of [dns, http, socks, relay, ...smtpServers.values()]) {
      await part.start();
      started.push(part);
    }
  } catch (error) {
    await Promise.all(started.map((part) => part.stop()));
    throw error;
  }
  const smtp = (host: string) => {
    const server = smtpServers.get(world.server(host).name);
    if (!server) throw new Error(`no lab SMTP server ${host}`);
    return server;
  };
  const dnsServer = `${dns.host}:${dns.port}`;
  return {
    world,
    dns,
    http,
    socks,
    relay,
    dnsServer,
    smtpPort,
    env: {
      DNS_SERVERS: dnsServer,
      SMTP_PORT: String(smtpPort),
      ALLOW_PRIVATE_MX: 'true',
      RDAP_BASE_URL: http.baseUrl,
      GRAVATAR_BASE_URL: http.baseUrl,
    },
    ipOf: (host) => world.server(host).ip,
    smtp,
    stats: (host) => smtp(host).stats,
    resetStats: () => smtpServers.forEach((server) => server.resetStats()),
    stop: async () => {
      await Promise.all(started.map((part) => part.stop()));
    },
  };
}
