import { cookieHeader, readCookie } from './cookies';

const request = (cookie?: string) => ({ headers: cookie === undefined ? {} : { cookie } });

describe('cookies', () => {
  it('writes the session cookie HttpOnly, SameSite=Lax, Path=/ and Secure unless told otherwise', () => {
    const header = cookieHeader('mg_session', 'abc_-1', { httpOnly: true, secure: true, maxAge: 60 });
    expect(header.split('; ').sort()).toEqual(
      ['HttpOnly', 'Max-Age=60', 'Path=/', 'SameSite=Lax', 'Secure', 'mg_session=abc_-1'].sort(),
    );
    const plain = cookieHeader('mg_csrf', 'abc', { httpOnly: false, secure: false, maxAge: 60 });
    expect(plain).not.toMatch(/HttpOnly|Secure/);
    expect(plain).toMatch(/SameSite=Lax/);
  });

  it('clears a cookie with Max-Age=0 and an expiry in the past', () => {
    expect(cookieHeader('mg_session', '', { httpOnly: true, secure: true, maxAge: 0 })).toMatch(
      /^mg_session=; Path=\/; Max-Age=0; SameSite=Lax; Expires=Thu, 01 Jan 1970/,
    );
  });

  it('refuses values that could break the header', () => {
    expect(() => cookieHeader('a', 'x;\r\nSet-Cookie: y=1', { httpOnly: true, secure: true, maxAge: 1 })).toThrow();
  });

  it('reads one cookie among others, and nothing from a missing header or an empty value', () => {
    expect(readCookie(request('a=1; mg_session=tok; mg_csrf=c'), 'mg_session')).toBe('tok');
    expect(readCookie(request('xmg_session=tok'), 'mg_session')).toBeNull();
    expect(readCookie(request('mg_session='), 'mg_session')).toBeNull();
    expect(readCookie(request(), 'mg_session')).toBeNull();
  });
});
