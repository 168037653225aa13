import type { FuzzCase } from './generators';

/**
 * The inputs issue 15's outside battery found answered with a 500 or worse, kept as regressions:
 * every fuzz run sends each of them first.
 */
const NUL = '\u0000';
const json = (method: string, path: string, body: string, auth: FuzzCase['auth']): FuzzCase => ({
  surface: 'corpus',
  method,
  path,
  headers: [['content-type', 'application/json']],
  body: Buffer.from(body),
  auth,
});
const get = (path: string, method = 'GET'): FuzzCase => ({
  surface: 'corpus',
  method,
  path,
  headers: [],
  body: Buffer.alloc(0),
  auth: 'secret',
});
const upload = (parts: Array<{ name: string; filename?: string; body: string }>): FuzzCase => ({
  surface: 'corpus',
  method: 'POST',
  path: '/v1/lists',
  headers: [['content-type', 'multipart/form-data; boundary=b']],
  body: Buffer.from(
    `${parts.map((part) => `--b\r\nContent-Disposition: form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}\r\n\r\n${part.body}\r\n`).join('')}--b--\r\n`,
  ),
  auth: 'secret',
});
const csv = (text: string, extra: Array<{ name: string; body: string }> = []) =>
  upload([...extra, { name: 'file', filename: 'a.csv', body: text }]);

export function regressionCorpus(): FuzzCase[] {
  return [
    // The request that ended the gateway: a file part without its closing boundary.
    {
      surface: 'corpus',
      method: 'POST',
      path: '/v1/lists',
      headers: [['content-type', 'multipart/form-data; boundary=----fzb']],
      body: Buffer.from(
        '------fzb\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nemail\nx\r\n',
      ),
      auth: 'secret',
    },
    {
      surface: 'corpus',
      method: 'POST',
      path: '/v1/lists',
      headers: [['content-type', 'multipart/form-data']],
      body: Buffer.from('email\nx@acme.test\n'),
      auth: 'secret',
    },
    // NUL and lone surrogates in addresses, names, messages, fields and ids.
    get(`/v1/email-validation/${encodeURIComponent(`jane${NUL}@acme.test`)}`),
    json('POST', '/v1/email-validation/batch', JSON.stringify({ emails: [`jane${NUL}@acme.test`] }), 'secret'),
    json('POST', '/v1/email-validation/batch', '{"emails":["ja\\ud800ne@acme.test"]}', 'secret'),
    json('POST', '/v1/widget/verify', '{"email":"ja\\ud800ne@acme.test","deviceId":"corpus-device-1"}', 'none'),
    json('POST', '/v1/widget/verify', '{"email":"ja\\udfffne@acme.test"}', 'widget'),
    json('POST', '/v1/keys', JSON.stringify({ name: `k${NUL}`, scope: 'full' }), 'secret'),
    json('POST', '/v1/accounts', JSON.stringify({ email: 'corpus.signup@catchall.test', name: `n${NUL}` }), 'none'),
    json('PUT', '/v1/widget/settings', JSON.stringify({ defaults: { messages: { invalid: `x${NUL}` } } }), 'settings'),
    csv(`email,note\njane@acme.test,a${NUL}b\n`),
    csv(`email,no${NUL}te\njane@acme.test,ab\n`),
    csv('email\njane@acme.test\n', [{ name: 'name', body: `l${NUL}` }]),
    csv('email\njane@acme.test\n', [{ name: 'webhookUrl', body: `https://hooks${NUL}.example.com/` }]),
    get(`/v1/lists/lst_${encodeURIComponent(NUL)}`),
    get(`/v1/keys/key_${encodeURIComponent(NUL)}`, 'DELETE'),
    // Optional fields sent as null, which reached the database as not-null violations (500).
    ...['{"name":null}', '{"scope":null}'].map((body): FuzzCase => ({
      ...json('PATCH', '/v1/keys/:id', body, 'secret'),
      badRequest: 'http',
    })),
    // JSON nested 2,000 deep, keyless.
    json('POST', '/v1/widget/verify', `${'{"email":'.repeat(2000)}1${'}'.repeat(2000)}`, 'none'),
    json('POST', '/v1/accounts', `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`, 'none'),
    // Very wide rows: 200,000 columns (the battery's file had 51 such rows, 41.5 MB).
    csv(`email${',c'.repeat(200_000)}\n${`jane@acme.test${',v'.repeat(200_000)}\n`.repeat(3)}`),
    // Junk after the domain, which syntax used to drop.
    ...['/evil', '\\evil', '?x=1', '#frag'].map((junk) =>
      json('POST', '/v1/email-validation/batch', JSON.stringify({ emails: [`peter@example.com${junk}`] }), 'secret'),
    ),
    get(`/v1/email-validation/${encodeURIComponent('peter@example.com/evil')}`),
    // Key guessing from one address: 401s, then 429s.
    ...Array.from({ length: 25 }, (_, i): FuzzCase => ({
      surface: 'corpus',
      method: 'GET',
      path: '/v1/credits',
      headers: [
        ['x-api-key', `mg_live_${String(i).padStart(32, 'g')}`],
        ['x-forwarded-for', '203.0.113.200'],
      ],
      body: Buffer.alloc(0),
      auth: 'none',
    })),
  ];
}
