import { createHmac } from 'node:crypto';
import { addressPolicy, addressResolver, Outbound, RefusedAddressError } from '@mailguard/net';
import { startLab, type Lab } from '../../../../test/lab';
import { loadScenario } from '../../../../test/lab/scenario';
import { HttpListener } from '../../../../test/lab/testing/http-listener';
import { checkWebhookTarget, deliverWebhook, signWebhook } from './webhook';

const strict = new Outbound(addressPolicy(false), addressResolver(null));
const lenient = new Outbound(addressPolicy(true), addressResolver(null));

describe('webhook targets', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://10.1.2.3/hook',
    'http://[::1]/hook',
    'http://169.254.169.254/latest',
    'http://localhost/hook',
    'http://192.168.0.10/',
    // IPv6 forms of 127.0.0.1 and 169.254.169.254: compatible, translated, 6to4, NAT64.
    'http://[::7f00:1]/hook',
    'http://[::ffff:0:7f00:1]/hook',
    'http://[2002:7f00:1::1]/hook',
    'http://[64:ff9b::a9fe:a9fe]/latest',
  ])('refuses %s (private, loopback or link-local) unless private targets are allowed', async (url) => {
    await expect(checkWebhookTarget(url, strict)).rejects.toMatchObject({ code: 'bad_request' });
    await expect(checkWebhookTarget(url, lenient)).resolves.toBeInstanceOf(URL);
  });

  it.each(['ftp://example.com/', 'not a url', 'http://user:pass@8.8.8.8/'])('refuses %s', async (url) => {
    await expect(checkWebhookTarget(url, lenient)).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('accepts a public address', async () => {
    await expect(checkWebhookTarget('https://8.8.8.8/hook', strict)).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookTarget('https://[64:ff9b::808:808]/hook', strict)).resolves.toBeInstanceOf(URL);
  });
});

describe('signWebhook', () => {
  it('is sha256= and the lowercase hex HMAC-SHA256 of the raw body keyed with the secret', () => {
    const body = '{"id":"lst_1","status":"completed"}';
    expect(signWebhook(body, 'whsec_test')).toBe(
      `sha256=${createHmac('sha256', 'whsec_test').update(body).digest('hex')}`,
    );
    expect(signWebhook(body, 'whsec_test')).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});

describe('delivery to a name that rebinds (mail lab DNS)', () => {
  let lab: Lab;
  let loopback: HttpListener;

  beforeAll(async () => {
    const scenario = loadScenario();
    // A lab address stands in for a public one (nothing public can be served here): the name answers it, then 127.0.0.1.
    scenario.servers!['stand-in.pinned.test'] = { down: true };
    scenario.domains!['pinned.test'] = { rebind: ['stand-in.pinned.test', '127.0.0.1'] };
    lab = await startLab(scenario);
    loopback = await HttpListener.start('127.0.0.1');
  });

  afterAll(async () => {
    await loopback.close();
    await lab.stop();
  });

  it('is POSTed to the address its connection checked, and never reaches loopback however the name answers', async () => {
    const admitted = lab.ipOf('stand-in.pinned.test');
    const receiver = await HttpListener.start(admitted, loopback.port);
    try {
      const outbound = new Outbound((address) => address === admitted, addressResolver([lab.dnsServer]));
      const url = `http://pinned.test:${loopback.port}/hook`;
      const outcomes: string[] = [];
      for (let attempt = 0; attempt < 4; attempt++) {
        outcomes.push(
          await deliverWebhook(url, '{"id":"lst_1"}', 'whsec_test', outbound).then(
            (status) => `delivered ${status}`,
            (error: Error) => (error instanceof RefusedAddressError ? 'refused' : error.message),
          ),
        );
      }
      expect(outcomes).toEqual(['delivered 204', 'refused', 'delivered 204', 'refused']);
      expect(receiver.heard.map((request) => request.headers['x-mailguard-signature'])).toEqual(
        Array(2).fill(signWebhook('{"id":"lst_1"}', 'whsec_test')),
      );
      expect(loopback.connections).toBe(0);
      // Resolved once per delivery: checking and connecting are one look-up.
      expect(lab.dns.rebindAnswers('pinned.test')).toBe(4);
    } finally {
      await receiver.close();
    }
  });

  it('with ALLOW_PRIVATE_MX=false, a name answering 203.0.113.10 then 127.0.0.1 is refused at upload and at every delivery', async () => {
    const outbound = new Outbound(addressPolicy(false), addressResolver([lab.dnsServer]));
    const url = `http://rebind.test:${loopback.port}/hook`;
    await expect(checkWebhookTarget(url, outbound)).rejects.toMatchObject({ code: 'bad_request' });
    for (let attempt = 0; attempt < 3; attempt++)
      await expect(deliverWebhook(url, '{}', 'whsec_test', outbound)).rejects.toBeInstanceOf(RefusedAddressError);
    expect(lab.dns.rebindAnswers('rebind.test')).toBe(4);
    expect(loopback.connections).toBe(0);
  });
});
