import { TlsSessionCache } from './tls-sessions';

describe('the TLS session cache', () => {
  const ticket = (n: number) => Buffer.from(`ticket ${n}`);

  it('keeps one ticket per host, the newest', () => {
    const cache = new TlsSessionCache(10);
    cache.set('mx1.test', ticket(1));
    cache.set('mx1.test', ticket(2));
    expect(cache.size).toBe(1);
    expect(cache.get('mx1.test')).toEqual(ticket(2));
  });

  it('holds at most maxHosts hosts: the host heard from longest ago goes first', () => {
    const cache = new TlsSessionCache(3);
    for (let host = 0; host < 1_000; host++) cache.set(`mx${host}.test`, ticket(host));
    expect(cache.size).toBe(3);
    expect(cache.get('mx996.test')).toBeUndefined();
    cache.set('mx997.test', ticket(0));
    cache.set('mx1000.test', ticket(1_000));
    expect(cache.get('mx997.test')).toEqual(ticket(0));
    expect(cache.get('mx998.test')).toBeUndefined();
  });

  it('lets go of a ticket that failed', () => {
    const cache = new TlsSessionCache(3);
    cache.set('mx1.test', ticket(1));
    cache.delete('mx1.test');
    expect(cache.size).toBe(0);
    expect(cache.get('mx1.test')).toBeUndefined();
  });
});
