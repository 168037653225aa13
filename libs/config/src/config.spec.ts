import { ConfigError, loadConfig } from './index';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({ port: 3000, rateLimitPerMinute: 60, trustProxy: 0 });
    expect(config.database).toEqual({ url: null, embeddedDataDir: 'data' });
    expect(config.redis.url).toBeNull();
    expect(config.dns.servers).toBeNull();
    expect(config.smtp).toMatchObject({ port: 25, timeoutMs: 10_000, proxy: null, allowPrivateMx: false, mxConcurrency: 5 });
    expect(config.smtp.mailFrom).toBe(`verify@${config.smtp.heloName}`);
    expect(config.checks).toEqual({ deadlineMs: 12_000, greylistRetrySeconds: 300, cacheTtlSeconds: 86_400, webhookRetrySeconds: 30 });
    expect(config.lookups).toEqual({ rdapBaseUrl: null, gravatarBaseUrl: 'https://gravatar.com' });
    expect(config.admin.token).toBeNull();
    expect(config.signup.limitPerIpHour).toBe(20);
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
    });
    expect(config.checks).toEqual({ deadlineMs: 8000, greylistRetrySeconds: 60, cacheTtlSeconds: 0, webhookRetrySeconds: 5 });
    expect(config.lookups).toEqual({ rdapBaseUrl: 'http://127.0.0.80:8080', gravatarBaseUrl: 'http://127.0.0.80:8080' });
    expect(config.admin.token).toBe('secret-token');
    expect(config.signup.limitPerIpHour).toBe(5);
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
});
