import { addressPolicy, addressResolver, Outbound } from '@mailguard/net';
import { startLab, type Lab } from '../../../../test/lab';
import { loadScenario } from '../../../../test/lab/scenario';
import { HttpListener } from '../../../../test/lab/testing/http-listener';
import { DomainAgeLookup } from './domain-age';
import { hasGravatar } from './gravatar';
import { outboundGet, withTimeout } from './http';

/** RDAP and avatar look-ups through the outbound policy, against the mail lab's real servers. */
let lab: Lab;
let loopback: HttpListener;
let redirector: HttpListener;
/** Where the redirector sends each request, by path. */
const redirects = new Map<string, string>();

beforeAll(async () => {
  const scenario = loadScenario();
  // A lab address standing in for a public RDAP/avatar service that redirects.
  scenario.servers!['redirector.pinned.test'] = { down: true };
  lab = await startLab(scenario);
  loopback = await HttpListener.start('127.0.0.1');
  redirector = await HttpListener.start(lab.ipOf('redirector.pinned.test'), 0, (request, response) => {
    const to = [...redirects].find(([prefix]) => request.path.startsWith(prefix))?.[1];
    response.writeHead(302, { location: `${to}${request.path}` }).end();
  });
});

afterAll(async () => {
  await Promise.all([loopback.close(), redirector.close()]);
  await lab.stop();
});

const resolve = () => addressResolver([lab.dnsServer]);
const emailWithAvatar = 'john.doe@acme.test';

it('asks no private address unless ALLOW_PRIVATE_MX=true: the lab services answer only when it is', async () => {
  const strict = outboundGet(new Outbound(addressPolicy(false), resolve()));
  const lenient = outboundGet(new Outbound(addressPolicy(true), resolve()));
  const before = lab.http.requests;
  expect(await new DomainAgeLookup(strict, lab.http.baseUrl).lookup('acme.test')).toEqual({
    createdAt: null,
    ageDays: null,
  });
  expect(await hasGravatar(strict, lab.http.baseUrl, emailWithAvatar)).toBeNull();
  expect(lab.http.requests).toBe(before);
  expect((await new DomainAgeLookup(lenient, lab.http.baseUrl).lookup('acme.test')).ageDays).toEqual(
    expect.any(Number),
  );
  expect(await hasGravatar(lenient, lab.http.baseUrl, emailWithAvatar)).toBe(true);
});

it('follows redirects, each hop checked where it connects: none reaches loopback, by address or by a name that rebinds', async () => {
  const admitted = new Set([lab.ipOf('redirector.pinned.test'), lab.http.host]);
  const http = outboundGet(new Outbound((address) => admitted.has(address), resolve()));
  const base = `http://${redirector.host}:${redirector.port}`;
  redirects.set('/domain/', lab.http.baseUrl);
  expect((await new DomainAgeLookup(http, base).lookup('acme.test')).ageDays).toEqual(expect.any(Number));
  redirects.set('/domain/', `http://127.0.0.1:${loopback.port}`);
  redirects.set('/avatar/', `http://rebind.test:${loopback.port}`);
  expect(await new DomainAgeLookup(http, base).lookup('acme.test')).toEqual({ createdAt: null, ageDays: null });
  for (let attempt = 0; attempt < 2; attempt++) expect(await hasGravatar(http, base, emailWithAvatar)).toBeNull();
  expect(lab.dns.rebindAnswers('rebind.test')).toBe(2);
  expect(loopback.connections).toBe(0);
});

describe('withTimeout', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('aborts a look-up that runs past its time, and leaves no timer behind one that answered (a list asks thousands)', async () => {
    let given: AbortSignal | null = null;
    const slow = withTimeout(1_000, (signal) => {
      given = signal;
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    });
    jest.advanceTimersByTime(1_000);
    await expect(slow).rejects.toThrow('aborted');
    expect(given!.aborted).toBe(true);

    await expect(withTimeout(1_000, async () => 'answered')).resolves.toBe('answered');
    expect(jest.getTimerCount()).toBe(0);
  });
});
