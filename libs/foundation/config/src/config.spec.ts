import { assertPortsApart, ConfigError, loadConfig } from './index';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    // Embedded: one process, no load balancer to wait for at shutdown.
    expect(config.http).toEqual({
      port: 3000,
      rateLimitPerMinute: 60,
      trustProxy: 0,
      shutdownDelayMs: 0,
    });
    expect(config.database).toEqual({ url: null, embeddedDataDir: 'data' });
    expect(config.redis.url).toBeNull();
    expect(config.dns.servers).toBeNull();
    expect(config.smtp).toMatchObject({
      port: 25,
      timeoutMs: 10_000,
      allowPrivateMx: false,
      mxConcurrency: 5,
    });
    expect(config.smtp.mailFrom).toBe(`verify@${config.smtp.heloName}`);
    expect(config.checks).toEqual({
      deadlineMs: 12_000,
      greylistRetrySeconds: 300,
      cacheTtlSeconds: 86_400,
      webhookRetrySeconds: 30,
      chargeSweepMarginMs: 60_000,
    });
    expect(config.lookups).toEqual({ rdapBaseUrl: null, gravatarBaseUrl: 'https://gravatar.com' });
    expect(config.admin.token).toBeNull();
    expect(config.signup.limitPerIpHour).toBe(20);
    expect(config.workers).toEqual({
      ports: { 'dns-worker': 3101, 'smtp-worker': 3102, 'scoring-worker': 3103, 'list-worker': 3104 },
      concurrency: null,
    });
    expect(config.metrics).toEqual({ port: 3105, token: null });
    expect(config.log).toEqual({ level: 'info', hashKey: expect.stringMatching(/^[0-9a-f]{64}$/), secrets: [] });
  });

  it('reads every variable of docs/configuration.md', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u:p@db:5432/mailguard',
      REDIS_URL: 'redis://cache:6379/2',
      DNS_SERVERS: '127.0.0.53, 10.0.0.2:5353,[::1]:53,::1',
      SMTP_PORT: '2525',
      SMTP_HELO_NAME: 'Probe.Example.com',
      SMTP_MAIL_FROM: 'bounce@example.com',
      SMTP_TIMEOUT_MS: '5000',
      CHECK_DEADLINE_MS: '8000',
      GREYLIST_RETRY_SECONDS: '60',
      SMTP_PROXY: 'socks5://user:p%40ss@proxy.example.com:1081',
      ALLOW_PRIVATE_MX: 'true',
      RDAP_BASE_URL: 'http://127.0.0.80:8080/',
      GRAVATAR_BASE_URL: 'http://127.0.0.80:8080',
      CACHE_TTL_SECONDS: '0',
      WEBHOOK_RETRY_SECONDS: '5',
      CHARGE_SWEEP_MARGIN_MS: '2000',
      ADMIN_TOKEN: 'secret-token',
      SIGNUP_LIMIT_PER_IP_HOUR: '5',
      DNS_WORKER_PORT: '9101',
      SMTP_WORKER_PORT: '9102',
      SCORING_WORKER_PORT: '0',
      LIST_WORKER_PORT: '9104',
      WORKER_CONCURRENCY: '7',
      SHUTDOWN_DELAY_MS: '2500',
    });
    expect(config.http.port).toBe(8080);
    expect(config.http.shutdownDelayMs).toBe(2500);
    expect(config.database.url).toBe('postgres://u:p@db:5432/mailguard');
    expect(config.redis.url).toBe('redis://cache:6379/2');
    expect(config.dns.servers).toEqual(['127.0.0.53:53', '10.0.0.2:5353', '[::1]:53', '[::1]:53']);
    expect(config.smtp).toEqual({
      port: 2525,
      heloName: 'probe.example.com',
      mailFrom: 'bounce@example.com',
      timeoutMs: 5000,
      allowPrivateMx: true,
      mxConcurrency: 5,
      sessionIdleMs: 10_000,
    });
    expect(config.prober.egress).toEqual([
      {
        id: 'socks5://proxy.example.com:1081',
        localAddress: null,
        proxy: { host: 'proxy.example.com', port: 1081, username: 'user', password: 'p@ss' },
        providers: null,
      },
    ]);
    expect(config.checks).toEqual({
      deadlineMs: 8000,
      greylistRetrySeconds: 60,
      cacheTtlSeconds: 0,
      webhookRetrySeconds: 5,
      chargeSweepMarginMs: 2000,
    });
    expect(config.lookups).toEqual({
      rdapBaseUrl: 'http://127.0.0.80:8080',
      gravatarBaseUrl: 'http://127.0.0.80:8080',
    });
    expect(config.admin.token).toBe('secret-token');
    expect(config.signup.limitPerIpHour).toBe(5);
    expect(config.workers).toEqual({
      ports: { 'dns-worker': 9101, 'smtp-worker': 9102, 'scoring-worker': 0, 'list-worker': 9104 },
      concurrency: 7,
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DNS_SERVERS', 'nonsense'],
    ['DNS_SERVERS', '1.2.3.4:99999'],
    ['SMTP_PORT', '0'],
    ['SMTP_HELO_NAME', 'bad name!'],
    ['SMTP_MAIL_FROM', 'not an address'],
    ['SMTP_MAIL_FROM', 'a@b.test\r\nRCPT TO:<x@y>'],
    ['SMTP_TIMEOUT_MS', '1.5'],
    ['SMTP_PROXY', 'http://proxy:8080'],
    ['ALLOW_PRIVATE_MX', 'sometimes'],
    ['DATABASE_URL', 'mysql://db/x'],
    ['REDIS_URL', 'not a url'],
    ['RDAP_BASE_URL', 'ftp://rdap'],
    ['CHECK_DEADLINE_MS', '-1'],
    ['CHARGE_SWEEP_MARGIN_MS', '0'],
    ['LOG_LEVEL', 'loud'],
    ['SMTP_WORKER_PORT', '70000'],
    ['LIST_WORKER_PORT', 'metrics'],
    ['WORKER_CONCURRENCY', '0'],
    ['WORKER_CONCURRENCY', 'many'],
    ['RETENTION_DAYS', '-1'],
    ['RETENTION_DAYS', '1.5'],
    ['RETENTION_SWEEP_SECONDS', '0'],
    ['METRICS_PORT', '65536'],
    ['METRICS_TOKEN', 'short'],
    ['LOG_HASH_KEY', 'short'],
    ['SHUTDOWN_DELAY_MS', '-1'],
    ['SHUTDOWN_DELAY_MS', '300001'],
    ['SHUTDOWN_DELAY_MS', 'soon'],
  ])('rejects %s=%j with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`\\b${name}\\b`));
  });

  it('keeps addresses 30 days by default, and the result cache never longer than retention', () => {
    expect(loadConfig({}).retention).toEqual({ days: 30, sweepSeconds: 3_600 });
    const config = loadConfig({ RETENTION_DAYS: '0', RETENTION_SWEEP_SECONDS: '2', CACHE_TTL_SECONDS: '600' });
    expect(config.retention).toEqual({ days: 0, sweepSeconds: 2 });
    // Answers are cached by address: with nothing kept, nothing is cached.
    expect(config.checks.cacheTtlSeconds).toBe(0);
    expect(loadConfig({ RETENTION_DAYS: '1', CACHE_TTL_SECONDS: '172800' }).checks.cacheTtlSeconds).toBe(86_400);
    expect(loadConfig({ RETENTION_DAYS: '1', CACHE_TTL_SECONDS: '600' }).checks.cacheTtlSeconds).toBe(600);
  });

  it('waits 10 s after SIGTERM before the gateway stops accepting, behind a load balancer (a Postgres of its own)', () => {
    const url = 'postgres://db/mailguard';
    expect(loadConfig({ DATABASE_URL: url }).http.shutdownDelayMs).toBe(10_000);
    expect(loadConfig({ DATABASE_URL: url, SHUTDOWN_DELAY_MS: '0' }).http.shutdownDelayMs).toBe(0);
  });

  it('lists every bad variable in one message', () => {
    try {
      loadConfig({ PORT: 'x', SMTP_PORT: 'y' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toHaveLength(2);
      expect((error as ConfigError).message).not.toContain('\n');
    }
  });

  it('never echoes a password from a malformed connection string', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' })).toThrow(/<redacted>/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' })).not.toThrow(/hunter2/);
  });

  it('never serves the metrics on the API port', () => {
    expect(() => loadConfig({ PORT: '8080', METRICS_PORT: '8080' })).toThrow(
      'METRICS_PORT and PORT are both 8080: the metrics are never served on the API port',
    );
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metrics.port).toBe(0);
    expect(loadConfig({ METRICS_TOKEN: 'a-long-metrics-token' }).metrics.token).toBe('a-long-metrics-token');
  });

  it('keys the log hash with LOG_HASH_KEY, else alike in every process of one deployment, and never echoes it', () => {
    expect(loadConfig({ LOG_HASH_KEY: 'sixteen-chars-ok' }).log.hashKey).toBe('sixteen-chars-ok');
    expect(() => loadConfig({ LOG_HASH_KEY: 'too-short' })).toThrow(/^(?!.*too-short).*LOG_HASH_KEY/s);
    // The gateway reads both URLs, a worker only Redis: both derive the same key from what they share.
    const gateway = loadConfig({ DATABASE_URL: 'postgres://u:p@db/x', REDIS_URL: 'redis://:pw@cache:6379' });
    const worker = loadConfig({ REDIS_URL: 'redis://:pw@cache:6379' });
    expect(worker.log.hashKey).toBe(gateway.log.hashKey);
    expect(loadConfig({ REDIS_URL: 'redis://:pw@cache:6379', REDIS_PREFIX: 'other:' }).log.hashKey).not.toBe(
      gateway.log.hashKey,
    );
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db/x' }).log.hashKey).not.toBe(loadConfig({}).log.hashKey);
  });

  it('gives the logger the secrets no line may show: ADMIN_TOKEN, METRICS_TOKEN and LOG_HASH_KEY', () => {
    const config = loadConfig({
      ADMIN_TOKEN: 'admin-token-1',
      METRICS_TOKEN: 'metrics-token-0123',
      LOG_HASH_KEY: 'log-hash-key-0123',
    });
    expect(config.log.secrets.sort()).toEqual(['admin-token-1', 'log-hash-key-0123', 'metrics-token-0123']);
    // Shorter ones would blank ordinary words of every line.
    expect(loadConfig({ ADMIN_TOKEN: 'abc' }).log.secrets).toEqual([]);
  });

  it('refuses WORKER_PORT, which gave every worker kind one port, and names the variable of each kind', () => {
    expect(() => loadConfig({ WORKER_PORT: '3101' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKER_PORT: '3101' })).toThrow(
      /WORKER_PORT .*DNS_WORKER_PORT, SMTP_WORKER_PORT, SCORING_WORKER_PORT, LIST_WORKER_PORT/,
    );
  });
});

describe('the prober (docs/configuration.md and docs/production.md)', () => {
  it('has one default egress and the documented self-check defaults', () => {
    expect(loadConfig({}).prober).toEqual({
      egress: [{ id: 'default', localAddress: null, proxy: null, providers: null }],
      publicIp: null,
      publicIpLookup: [
        { name: 'myip.opendns.com', server: 'resolver1.opendns.com', port: 53 },
        { name: 'myip.opendns.com', server: 'resolver2.opendns.com', port: 53 },
      ],
      canaries: [
        { host: 'gmail-smtp-in.l.google.com', port: null },
        { host: 'mx1.hotmail.com', port: null },
        { host: 'mta5.am0.yahoodns.net', port: null },
      ],
      dnsblZones: ['zen.spamhaus.org', 'b.barracudacentral.org', 'bl.spamcop.net'],
      checkMinutes: 60,
      blockSeconds: 600,
    });
  });

  it('reads SMTP_EGRESS: local addresses and SOCKS5 proxies, each with the providers it alone serves', () => {
    const { prober } = loadConfig({
      SMTP_EGRESS:
        'local:203.0.113.7, local:203.0.113.8@yahoo,Microsoft,socks5://u:p%40ss@proxy.example.com:1081@mx.example.net,local:2001:db8::25,socks5://plain.example.com',
      PUBLIC_IP: '198.51.100.9',
      PUBLIC_IP_LOOKUP: 'whoami.example.com@192.0.2.53:5353',
      PROBER_CANARIES: 'mx.example.com:2525,192.0.2.25',
      DNSBL_ZONES: 'zen.example.org',
      PROBER_CHECK_MINUTES: '0',
      PROBER_BLOCK_SECONDS: '5',
    });
    expect(prober).toEqual({
      egress: [
        { id: 'local:203.0.113.7', localAddress: '203.0.113.7', proxy: null, providers: null },
        { id: 'local:203.0.113.8', localAddress: '203.0.113.8', proxy: null, providers: ['yahoo', 'microsoft'] },
        {
          id: 'socks5://proxy.example.com:1081',
          localAddress: null,
          proxy: { host: 'proxy.example.com', port: 1081, username: 'u', password: 'p@ss' },
          providers: ['mx.example.net'],
        },
        { id: 'local:2001:db8::25', localAddress: '2001:db8::25', proxy: null, providers: null },
        {
          id: 'socks5://plain.example.com:1080',
          localAddress: null,
          proxy: { host: 'plain.example.com', port: 1080, username: null, password: null },
          providers: null,
        },
      ],
      publicIp: '198.51.100.9',
      publicIpLookup: [{ name: 'whoami.example.com', server: '192.0.2.53', port: 5353 }],
      canaries: [
        { host: 'mx.example.com', port: 2525 },
        { host: '192.0.2.25', port: null },
      ],
      dnsblZones: ['zen.example.org'],
      checkMinutes: 0,
      blockSeconds: 5,
    });
  });

  it.each([
    ['SMTP_EGRESS', 'eth0'],
    ['SMTP_EGRESS', 'local:not-an-ip'],
    ['SMTP_EGRESS', 'local:203.0.113.7,,local:203.0.113.8'],
    ['SMTP_EGRESS', 'local:203.0.113.7,local:203.0.113.7'],
    ['SMTP_EGRESS', 'local:203.0.113.7@gmial'],
    ['SMTP_EGRESS', 'http://proxy.example.com:8080'],
    ['SMTP_EGRESS', 'local:203.0.113.7@yahoo'],
    ['PUBLIC_IP', 'example.com'],
    ['PUBLIC_IP_LOOKUP', 'myip.opendns.com'],
    ['PROBER_CANARIES', 'mx.example.com:99999'],
    ['DNSBL_ZONES', 'zen spamhaus'],
    ['PROBER_CHECK_MINUTES', '-1'],
    ['PROBER_BLOCK_SECONDS', '0'],
  ])('refuses %s=%j, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('tells the credentials of a proxy from a provider suffix', () => {
    const egress = (value: string) => loadConfig({ SMTP_EGRESS: value }).prober.egress;
    expect(egress('socks5://alice:1234@proxy.example.com,local:203.0.113.7')[0]).toEqual({
      id: 'socks5://proxy.example.com:1080',
      localAddress: null,
      proxy: { host: 'proxy.example.com', port: 1080, username: 'alice', password: '1234' },
      providers: null,
    });
    expect(egress('socks5://proxy.example.com:1081@yahoo,local:203.0.113.7')[0]).toMatchObject({
      id: 'socks5://proxy.example.com:1081',
      proxy: { username: null },
      providers: ['yahoo'],
    });
    expect(egress('local:2001:DB8::25')[0].id).toBe('local:2001:db8::25');
  });

  it('refuses SMTP_PROXY beside SMTP_EGRESS, and never echoes a proxy password', () => {
    expect(() =>
      loadConfig({ SMTP_PROXY: 'socks5://proxy.example.com:1080', SMTP_EGRESS: 'local:203.0.113.7' }),
    ).toThrow('SMTP_PROXY and SMTP_EGRESS are both set');
    expect(() => loadConfig({ SMTP_EGRESS: 'socks5://u:hunter2@' })).toThrow(/^(?!.*hunter2)/s);
  });
});

describe('assertPortsApart (the processes of start:all on one machine)', () => {
  it('accepts the defaults, and any number of processes on free ports (0)', () => {
    expect(() => assertPortsApart(loadConfig({}))).not.toThrow();
    expect(() =>
      assertPortsApart(
        loadConfig({
          PORT: '0',
          DNS_WORKER_PORT: '0',
          SMTP_WORKER_PORT: '0',
          SCORING_WORKER_PORT: '0',
          LIST_WORKER_PORT: '0',
        }),
      ),
    ).not.toThrow();
  });

  it('refuses two worker kinds on one port, naming both variables', () => {
    expect(() => assertPortsApart(loadConfig({ DNS_WORKER_PORT: '4000', LIST_WORKER_PORT: '4000' }))).toThrow(
      new ConfigError([
        'DNS_WORKER_PORT and LIST_WORKER_PORT are both 4000: processes on one machine need a port each (0 picks a free one)',
      ]),
    );
  });

  it('refuses a worker on the metrics port, naming both variables', () => {
    expect(() => assertPortsApart(loadConfig({ METRICS_PORT: '3101' }))).toThrow(
      /^Invalid configuration: METRICS_PORT and DNS_WORKER_PORT are both 3101/,
    );
  });

  it('refuses a worker on the gateway port, though a lone gateway may use it', () => {
    const config = loadConfig({ PORT: '3102' });
    expect(config.http.port).toBe(3102);
    expect(() => assertPortsApart(config)).toThrow(/^Invalid configuration: PORT and SMTP_WORKER_PORT are both 3102/);
  });
});
