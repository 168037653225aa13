import { assertPortsApart, ConfigError, loadConfig } from './index';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({ port: 3000, rateLimitPerMinute: 60, trustProxy: 0, fastPath: true });
    expect(config.database).toEqual({ url: null, embeddedDataDir: 'data' });
    expect(config.redis.url).toBeNull();
    expect(config.dns.servers).toBeNull();
    expect(config.smtp).toMatchObject({
      port: 25,
      timeoutMs: 10_000,
      proxy: null,
      allowPrivateMx: false,
      mxConcurrency: 5,
    });
    expect(config.smtp.mailFrom).toBe(`verify@${config.smtp.heloName}`);
    expect(config.checks).toEqual({
      deadlineMs: 12_000,
      greylistRetrySeconds: 300,
      cacheTtlSeconds: 86_400,
      webhookRetrySeconds: 30,
    });
    expect(config.lookups).toEqual({ rdapBaseUrl: null, gravatarBaseUrl: 'https://gravatar.com' });
    expect(config.admin.token).toBeNull();
    expect(config.signup.limitPerIpHour).toBe(20);
    expect(config.workers).toEqual({
      ports: { 'dns-worker': 3101, 'smtp-worker': 3102, 'scoring-worker': 3103, 'list-worker': 3104 },
      concurrency: null,
    });
  });

  it('reads every variable of API.md §8', () => {
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
      ADMIN_TOKEN: 'secret-token',
      SIGNUP_LIMIT_PER_IP_HOUR: '5',
      DNS_WORKER_PORT: '9101',
      SMTP_WORKER_PORT: '9102',
      SCORING_WORKER_PORT: '0',
      LIST_WORKER_PORT: '9104',
      WORKER_CONCURRENCY: '7',
    });
    expect(config.http.port).toBe(8080);
    expect(config.database.url).toBe('postgres://u:p@db:5432/mailguard');
    expect(config.redis.url).toBe('redis://cache:6379/2');
    expect(config.dns.servers).toEqual(['127.0.0.53:53', '10.0.0.2:5353', '[::1]:53', '[::1]:53']);
    expect(config.smtp).toEqual({
      port: 2525,
      heloName: 'probe.example.com',
      mailFrom: 'bounce@example.com',
      timeoutMs: 5000,
      proxy: { host: 'proxy.example.com', port: 1081, username: 'user', password: 'p@ss' },
      allowPrivateMx: true,
      mxConcurrency: 5,
      sessionIdleMs: 10_000,
    });
    expect(config.checks).toEqual({
      deadlineMs: 8000,
      greylistRetrySeconds: 60,
      cacheTtlSeconds: 0,
      webhookRetrySeconds: 5,
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
    ['LOG_LEVEL', 'loud'],
    ['SMTP_WORKER_PORT', '70000'],
    ['LIST_WORKER_PORT', 'metrics'],
    ['WORKER_CONCURRENCY', '0'],
    ['WORKER_CONCURRENCY', 'many'],
  ])('rejects %s=%j with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`\\b${name}\\b`));
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

  it('refuses WORKER_PORT, which gave every worker kind one port, and names the variable of each kind', () => {
    expect(() => loadConfig({ WORKER_PORT: '3101' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKER_PORT: '3101' })).toThrow(
      /WORKER_PORT .*DNS_WORKER_PORT, SMTP_WORKER_PORT, SCORING_WORKER_PORT, LIST_WORKER_PORT/,
    );
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

  it('refuses a worker on the gateway port, though a lone gateway may use it', () => {
    const config = loadConfig({ PORT: '3102' });
    expect(config.http.port).toBe(3102);
    expect(() => assertPortsApart(config)).toThrow(/^Invalid configuration: PORT and SMTP_WORKER_PORT are both 3102/);
  });
});
