import { hashPassword, passwordProblem, verifyPassword } from './passwords';

describe('passwords', () => {
  it('refuses short passwords, the email in any case, and what is not a string', () => {
    expect(passwordProblem('short', 'a@b.co')).toMatch(/at least 10/);
    expect(passwordProblem('Jane@Acme.com', 'jane@acme.COM')).toMatch(/not be the email/);
    expect(passwordProblem(12345678901, 'a@b.co')).toMatch(/string/);
    expect(passwordProblem('x'.repeat(257), 'a@b.co')).toMatch(/at most/);
    expect(passwordProblem('correct horse battery', 'a@b.co')).toBeNull();
  });

  it('stores a self-describing scrypt hash, salted, that verifies the password and nothing else', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await hashPassword('correct horse battery')).not.toBe(stored);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('answers false, after the same work, for no hash or a malformed or outlandish one', async () => {
    expect(await verifyPassword('anything at all', null)).toBe(false);
    expect(await verifyPassword('anything at all', 'md5$abc')).toBe(false);
    // A tampered row may not make verification run for minutes.
    expect(
      await verifyPassword('anything at all', `scrypt$${2 ** 30}$8$1$AAAAAAAAAAAAAAAAAAAAAA$${'A'.repeat(43)}`),
    ).toBe(false);
  });

  it('hashes off the event loop', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      await hashPassword('correct horse battery');
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });
});
