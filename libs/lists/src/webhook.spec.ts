import { createHmac } from 'node:crypto';
import { checkWebhookTarget, signWebhook } from './webhook';

describe('webhook targets', () => {
  it.each(['http://127.0.0.1:8080/hook', 'http://10.1.2.3/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest', 'http://localhost/hook', 'http://192.168.0.10/'])(
    'refuses %s (private, loopback or link-local) unless private targets are allowed',
    async (url) => {
      await expect(checkWebhookTarget(url, false)).rejects.toMatchObject({ code: 'bad_request' });
      await expect(checkWebhookTarget(url, true)).resolves.toBeInstanceOf(URL);
    },
  );

  it.each(['ftp://example.com/', 'not a url', 'http://user:pass@8.8.8.8/'])('refuses %s', async (url) => {
    await expect(checkWebhookTarget(url, true)).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('accepts a public address', async () => {
    await expect(checkWebhookTarget('https://8.8.8.8/hook', false)).resolves.toBeInstanceOf(URL);
  });
});

describe('signWebhook', () => {
  it('is sha256= and the lowercase hex HMAC-SHA256 of the raw body keyed with the secret', () => {
    const body = '{"id":"lst_1","status":"completed"}';
    expect(signWebhook(body, 'whsec_test')).toBe(`sha256=${createHmac('sha256', 'whsec_test').update(body).digest('hex')}`);
    expect(signWebhook(body, 'whsec_test')).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});
