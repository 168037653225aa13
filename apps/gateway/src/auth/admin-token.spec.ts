import { AppError } from '@mailguard/errors';
import { MemoryRateLimiter } from '@mailguard/ratelimit';
import { AdminToken } from './admin-token';
import { AUTH_FAILURES } from './key-meter';

/** The embedded store's side of admin-token throttling (the Redis side: the bullmq API e2e suite). */
describe('AdminToken', () => {
  let now: number;
  let admin: AdminToken;

  beforeEach(() => {
    now = 1_000_000;
    admin = new AdminToken('s3cret-admin', new MemoryRateLimiter(() => now));
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => error,
    );

  it('tells the token from wrong ones, whatever their length', async () => {
    expect(await admin.verify('s3cret-admin', '192.0.2.1')).toBe(true);
    expect(await admin.verify('s3cret-admiN', '192.0.2.1')).toBe(false);
    expect(await admin.verify('s3cret', '192.0.2.1')).toBe(false);
    expect(await admin.verify('', '192.0.2.1')).toBe(false);
  });

  it('answers 429 past the wrong tokens of one address, the right token too, until the window frees', async () => {
    for (let i = 0; i < AUTH_FAILURES.limit; i++) expect(await admin.verify(`guess${i}`, '192.0.2.7')).toBe(false);
    for (const given of ['guess-more', 's3cret-admin']) {
      const error = await refusal(admin.verify(given, '192.0.2.7'));
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'rate_limited', retryAfterSeconds: AUTH_FAILURES.windowMs / 1000 });
    }
    // Another address is not held back, and the right token never counts against its own.
    expect(await admin.verify('s3cret-admin', '192.0.2.8')).toBe(true);
    now += AUTH_FAILURES.windowMs;
    expect(await admin.verify('s3cret-admin', '192.0.2.7')).toBe(true);
  });

  it('never counts the right token', async () => {
    for (let i = 0; i < AUTH_FAILURES.limit * 2; i++)
      expect(await admin.verify('s3cret-admin', '192.0.2.9')).toBe(true);
    expect(await admin.verify('wrong', '192.0.2.9')).toBe(false);
  });
});
