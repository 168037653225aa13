import { hostname } from 'node:os';
import { ConfigError, EnvReader, isHostname } from './env-reader';
import { readLogConfig, type LogConfig } from './log';
import { readLoginConfig, type LoginConfig } from './logins';
import { readProberConfig, type ProberConfig } from './prober';
import { readUploadConfig, type UploadConfig } from './uploads';

export interface HttpConfig {
  port: number;
  /** Requests per rolling minute per key (docs/api.md#authentication: 60); raised only for benchmarks. */
  rateLimitPerMinute: number;
  /** Proxy hops in front of the gateway whose X-Forwarded-For is believed (client IPs for sign-up and widget limits). */
  trustProxy: number;
  /**
   * After SIGTERM, how long the gateway goes on serving (readiness already 503) before it stops
   * accepting connections: the time the orchestrator takes to stop routing to it.
   */
  shutdownDelayMs: number;
}

export interface DatabaseConfig {
  /** null: the embedded PGlite server, with its data in `embeddedDataDir`. */
  url: string | null;
  embeddedDataDir: string;
}

export interface RedisConfig {
  /** null: in-process queues, cache and counters (single process only). */
  url: string | null;
  /** Prefix of every key and queue this deployment writes, so deployments (and tests) can share a Redis. */
  keyPrefix: string;
}

export interface DnsConfig {
  /** `ip:port` entries for Node's resolver; null means the system resolvers. */
  servers: string[] | null;
}

export interface SmtpConfig {
  port: number;
  heloName: string;
  mailFrom: string;
  timeoutMs: number;
  allowPrivateMx: boolean;
  /** Concurrent sessions per MX host, across every prober process. */
  mxConcurrency: number;
  /** How long a greeted session waits open for the next probe at its MX address (0: QUIT after each probe). */
  sessionIdleMs: number;
}

export interface CheckConfig {
  deadlineMs: number;
  greylistRetrySeconds: number;
  cacheTtlSeconds: number;
  /** First retry delay of a failed webhook delivery; each next one doubles (10 attempts, hours in all). */
  webhookRetrySeconds: number;
  /** How long past its deadline a charge may stay unsettled before the charge sweep settles it. */
  chargeSweepMarginMs: number;
}

export interface LookupConfig {
  /** null: the IANA RDAP bootstrap decides per TLD. */
  rdapBaseUrl: string | null;
  gravatarBaseUrl: string;
}

export interface AdminConfig {
  /** null: Bull Board is disabled. */
  token: string | null;
}

export interface SignupConfig {
  limitPerIpHour: number;
}

export type WorkerName = 'dns-worker' | 'smtp-worker' | 'scoring-worker' | 'list-worker';

/** The variable of each worker kind's port: one per kind, since one machine may run them all. */
export const WORKER_PORT_VARIABLES: Record<WorkerName, string> = {
  'dns-worker': 'DNS_WORKER_PORT',
  'smtp-worker': 'SMTP_WORKER_PORT',
  'scoring-worker': 'SCORING_WORKER_PORT',
  'list-worker': 'LIST_WORKER_PORT',
};

const WORKER_DEFAULT_PORTS: Record<WorkerName, number> = {
  'dns-worker': 3101,
  'smtp-worker': 3102,
  'scoring-worker': 3103,
  'list-worker': 3104,
};

export interface WorkerConfig {
  /** Each kind's liveness and metrics port; 0 picks a free one. */
  ports: Record<WorkerName, number>;
  /** Jobs a worker process runs at once; null: its kind's own number. */
  concurrency: number | null;
}

export interface RetentionConfig {
  /** Days verified addresses are kept (results, list rows, feedback, evidence); 0: erased at the next sweep. */
  days: number;
  /** How often the gateway sweeps what is past retention. */
  sweepSeconds: number;
}

export interface MetricsConfig {
  /** The gateway's Prometheus metrics port (never the API's); 0 picks a free one. */
  port: number;
  /** Set: the API port serves `/metrics` too, to `Authorization: Bearer <token>`; null: it answers 404 there. */
  token: string | null;
}

export interface AppConfig {
  http: HttpConfig;
  database: DatabaseConfig;
  redis: RedisConfig;
  dns: DnsConfig;
  smtp: SmtpConfig;
  prober: ProberConfig;
  checks: CheckConfig;
  lookups: LookupConfig;
  admin: AdminConfig;
  signup: SignupConfig;
  uploads: UploadConfig;
  workers: WorkerConfig;
  retention: RetentionConfig;
  metrics: MetricsConfig;
  log: LogConfig;
  logins: LoginConfig;
}

/**
 * The gateway's pre-stop delay behind a load balancer: Kubernetes removes a terminating pod's
 * endpoints while it signals it, and kube-proxy and ingress controllers learn of it within seconds.
 */
const DEFAULT_SHUTDOWN_DELAY_MS = 10_000;
/** A token on the public port: long enough not to be guessed. */
const MIN_METRICS_TOKEN_LENGTH = 16;
const MAIL_FROM = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9.-]+$/;

function trimUrl(url: URL | null): string | null {
  return url ? url.toString().replace(/\/+$/, '') : null;
}

/** Reads and validates docs/configuration.md once; throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const read = new EnvReader(env);

  const systemName = hostname().toLowerCase();
  const heloName = read.hostname('SMTP_HELO_NAME', isHostname(systemName) ? systemName : 'localhost');
  const mailFrom = read.string('SMTP_MAIL_FROM', `verify@${heloName}`);
  if (!MAIL_FROM.test(mailFrom)) {
    read.problems.push(
      `SMTP_MAIL_FROM must be a plain address such as verify@example.com (got ${JSON.stringify(mailFrom)})`,
    );
  }

  const databaseUrl = read.url('DATABASE_URL', ['postgres:', 'postgresql:'], null);
  const redisUrl = read.url('REDIS_URL', ['redis:', 'rediss:'], null);

  if (read.string('WORKER_PORT', null) !== null) {
    // Read by every worker once, it gave all the kinds one port (EADDRINUSE under start:all).
    read.problems.push(
      `WORKER_PORT is no longer read: each worker kind has its own port (${Object.values(WORKER_PORT_VARIABLES).join(', ')})`,
    );
  }
  const workerPorts = Object.fromEntries(
    (Object.entries(WORKER_PORT_VARIABLES) as Array<[WorkerName, string]>).map(([name, variable]) => [
      name,
      read.int(variable, WORKER_DEFAULT_PORTS[name], 0, 65535),
    ]),
  ) as Record<WorkerName, number>;

  const port = read.int('PORT', 3000, 0, 65535);
  const metricsPort = read.int('METRICS_PORT', 3105, 0, 65535);
  if (metricsPort !== 0 && metricsPort === port) {
    read.problems.push(`METRICS_PORT and PORT are both ${port}: the metrics are never served on the API port`);
  }
  const metricsToken = read.string('METRICS_TOKEN', null);
  if (metricsToken !== null && metricsToken.length < MIN_METRICS_TOKEN_LENGTH) {
    read.problems.push(`METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} characters`);
  }
  const adminToken = read.string('ADMIN_TOKEN', null);
  const keyPrefix = read.string('REDIS_PREFIX', 'mailguard:');

  const retention: RetentionConfig = {
    days: read.int('RETENTION_DAYS', 30, 0, 36_500),
    sweepSeconds: read.int('RETENTION_SWEEP_SECONDS', 3_600, 1, 86_400),
  };

  const logins = readLoginConfig(read);

  const config: AppConfig = {
    http: {
      port,
      rateLimitPerMinute: read.int('RATE_LIMIT_PER_MINUTE', 60, 1, 10_000_000),
      trustProxy: read.int('TRUST_PROXY', 0, 0, 10),
      // Embedded (no DATABASE_URL) is one process on one machine: no load balancer to wait for.
      shutdownDelayMs: read.int('SHUTDOWN_DELAY_MS', databaseUrl ? DEFAULT_SHUTDOWN_DELAY_MS : 0, 0, 300_000),
    },
    database: { url: databaseUrl ? databaseUrl.toString() : null, embeddedDataDir: 'data' },
    redis: { url: redisUrl ? redisUrl.toString() : null, keyPrefix },
    dns: { servers: read.dnsServers('DNS_SERVERS') },
    smtp: {
      port: read.int('SMTP_PORT', 25, 1, 65535),
      heloName,
      mailFrom,
      timeoutMs: read.int('SMTP_TIMEOUT_MS', 10_000, 100, 600_000),
      allowPrivateMx: read.bool('ALLOW_PRIVATE_MX', false),
      mxConcurrency: read.int('SMTP_MX_CONCURRENCY', 5, 1, 1000),
      sessionIdleMs: read.int('SMTP_SESSION_IDLE_MS', 10_000, 0, 60_000),
    },
    prober: readProberConfig(read),
    checks: {
      deadlineMs: read.int('CHECK_DEADLINE_MS', 12_000, 100, 600_000),
      greylistRetrySeconds: read.int('GREYLIST_RETRY_SECONDS', 300, 0, 86_400),
      // The result cache is keyed by address: it keeps none longer than retention does.
      cacheTtlSeconds: Math.min(read.int('CACHE_TTL_SECONDS', 86_400, 0, 31_536_000), retention.days * 86_400),
      webhookRetrySeconds: read.int('WEBHOOK_RETRY_SECONDS', 30, 1, 3_600),
      chargeSweepMarginMs: read.int('CHARGE_SWEEP_MARGIN_MS', 60_000, 100, 3_600_000),
    },
    lookups: {
      rdapBaseUrl: trimUrl(read.url('RDAP_BASE_URL', ['http:', 'https:'], null)),
      gravatarBaseUrl:
        trimUrl(read.url('GRAVATAR_BASE_URL', ['http:', 'https:'], 'https://gravatar.com')) ?? 'https://gravatar.com',
    },
    admin: { token: adminToken },
    signup: { limitPerIpHour: read.int('SIGNUP_LIMIT_PER_IP_HOUR', 20, 0, 1_000_000) },
    uploads: readUploadConfig(read),
    // 0 stands for unset: the range starts at 1.
    workers: { ports: workerPorts, concurrency: read.int('WORKER_CONCURRENCY', 0, 1, 10_000) || null },
    retention,
    metrics: { port: metricsPort, token: metricsToken },
    logins,
    log: readLogConfig(
      read,
      { redisUrl: redisUrl?.toString() ?? null, databaseUrl: databaseUrl?.toString() ?? null, keyPrefix },
      [adminToken, metricsToken, logins.mailRelay?.password ?? null],
    ),
  };

  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

/**
 * For the gateway and the four workers started together on one machine (`npm run start:all`):
 * throws ConfigError naming every port two of them would share (0, a free port each, never clashes).
 */
export function assertPortsApart(config: AppConfig): void {
  const claims: Array<[string, number]> = [
    ['PORT', config.http.port],
    ['METRICS_PORT', config.metrics.port],
    ...(Object.entries(config.workers.ports) as Array<[WorkerName, number]>).map(([name, port]): [string, number] => [
      WORKER_PORT_VARIABLES[name],
      port,
    ]),
  ];
  const problems: string[] = [];
  claims.forEach(([variable, port], index) => {
    const clash = claims.slice(0, index).find(([, other]) => port !== 0 && other === port);
    if (clash)
      problems.push(
        `${clash[0]} and ${variable} are both ${port}: processes on one machine need a port each (0 picks a free one)`,
      );
  });
  if (problems.length > 0) throw new ConfigError(problems);
}
