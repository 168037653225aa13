import { actorOf, csrfMatches, csrfTokenFor, newToken, type Principal } from './sessions';
import { ROLE_RIGHTS, roleAllows } from './roles';

describe('session tokens', () => {
  it('derives a CSRF token from the session secret: stable for it, different for another', () => {
    const token = newToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrfTokenFor(token)).toBe(csrfTokenFor(token));
    expect(csrfTokenFor(token)).not.toBe(csrfTokenFor(newToken()));
    expect(csrfTokenFor(token)).not.toContain(token);
  });

  it('matches the CSRF header only when it is exactly the token', () => {
    const csrf = csrfTokenFor(newToken());
    expect(csrfMatches(csrf, csrf)).toBe(true);
    expect(csrfMatches(undefined, csrf)).toBe(false);
    expect(csrfMatches('', csrf)).toBe(false);
    expect(csrfMatches(csrf.slice(1), csrf)).toBe(false);
    expect(csrfMatches(`${csrf.slice(0, -1)}x`, csrf)).toBe(csrf.endsWith('x'));
  });

  it('names the actor of a key, an owner and a member', () => {
    const account = { id: 'acc_1' } as Principal['account'];
    expect(actorOf({ key: { id: 'key_1' } as never, account })).toBe('key:key_1');
    const session = { id: 'ses_1', memberId: null, role: 'owner' as const, csrf: '' };
    expect(actorOf({ account, session })).toBe('account:acc_1');
    expect(actorOf({ account, session: { ...session, memberId: 'mem_1', role: 'admin' } })).toBe('member:mem_1');
  });
});

describe('roles', () => {
  it('gives the owner everything, an admin everything but deleting the account', () => {
    for (const right of ROLE_RIGHTS.owner) expect(roleAllows('admin', right)).toBe(right !== 'account');
  });

  it('keeps developers out of billing and members, and billing out of everything but credits', () => {
    expect(roleAllows('developer', 'keys')).toBe(true);
    expect(roleAllows('developer', 'checks')).toBe(true);
    expect(roleAllows('developer', 'billing')).toBe(false);
    expect(roleAllows('developer', 'members')).toBe(false);
    expect([...ROLE_RIGHTS.billing].sort()).toEqual(['balance', 'billing', 'self']);
  });
});
