import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import { LogPrivacy, requestContext } from '@mailguard/logger';
import { requestIdFor, requestLogging, requestScope } from './request-logging';

/** The request log on a real Fastify server, into a real pino logger whose lines the test reads. */
interface Line {
  level: number;
  msg: string;
  req: { id: string; method: string; url: string };
  res: { statusCode: number };
  responseTime: number;
  err?: unknown;
}

const HASH_KEY = 'request-log-test-key';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const written: string[] = [];
const waiting = new Map<string, (line: Line) => void>();
/** What the handler saw of the request context, by request id. */
const contexts = new Map<string, string | undefined>();
let handlerReached: (() => void) | null = null;
let server: FastifyInstance;
let base: string;

function record(text: string): void {
  written.push(text);
  const line = JSON.parse(text) as Line;
  waiting.get(line.req?.id)?.(line);
}

/** The request line of a request id, once the response has ended on the server's side. */
function lineOf(id: string): Promise<Line> {
  const done = written.map((text) => JSON.parse(text) as Line).find((line) => line.req?.id === id);
  if (done) return Promise.resolve(done);
  return new Promise((resolve) => waiting.set(id, resolve));
}

async function handle(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  // After an await: the context must follow the request's own work.
  contexts.set(req.id, requestContext.getStore()?.requestId);
  if (req.url.startsWith('/hang')) {
    handlerReached?.();
    return new Promise<void>(() => undefined);
  }
  const status = Number(/^\/(\d{3})/.exec(req.url)?.[1] ?? 200);
  await reply
    .code(status)
    .type('text/plain')
    .send(req.body ? 'got it' : 'ok');
}

beforeAll(async () => {
  const logger = pino({ level: 'info', base: { service: 'test' } }, { write: record });
  server = Fastify({ genReqId: requestIdFor, forceCloseConnections: true });
  server.addHook('onRequest', requestLogging(logger, new LogPrivacy({ hashKey: HASH_KEY, secrets: [] })));
  server.addHook('preHandler', requestScope);
  server.all('/*', handle);
  base = await server.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server.close();
});

it('gives every response an X-Request-Id, keeps a sane one the client sent, and logs under it', async () => {
  const generated = await fetch(`${base}/200?page=2`);
  const id = generated.headers.get('x-request-id') ?? '';
  expect(id).toMatch(UUID);
  expect(await lineOf(id)).toEqual({
    level: 30,
    time: expect.any(Number),
    service: 'test',
    req: { id, method: 'GET', url: '/200?page=2' },
    res: { statusCode: 200 },
    responseTime: expect.any(Number),
    msg: 'request completed',
  });
  const kept = await fetch(`${base}/200`, { headers: { 'X-Request-Id': 'client-abc.123' } });
  expect(kept.headers.get('x-request-id')).toBe('client-abc.123');
  expect((await lineOf('client-abc.123')).req.id).toBe('client-abc.123');
  for (const insane of ['x'.repeat(129), 'a b', '<script>']) {
    const replaced = await fetch(`${base}/200`, { headers: { 'X-Request-Id': insane } });
    expect(replaced.headers.get('x-request-id')).toMatch(UUID);
  }
});

it('logs 2xx at info, 4xx at warn and 5xx at error, without a made-up error', async () => {
  const levels: Record<number, number> = {};
  for (const status of [204, 302, 404, 429, 500, 503]) {
    const response = await fetch(`${base}/${status}`, { redirect: 'manual' });
    const line = await lineOf(response.headers.get('x-request-id') ?? '');
    expect(line.res.statusCode).toBe(status);
    expect(line).not.toHaveProperty('err');
    levels[status] = line.level;
  }
  expect(levels).toEqual({ 204: 30, 302: 30, 404: 40, 429: 40, 500: 50, 503: 50 });
});

it('never logs an API key, a credential or a body', async () => {
  const response = await fetch(`${base}/200`, {
    method: 'POST',
    headers: { 'X-API-Key': 'mg_live_SECRETKEY', authorization: 'Bearer SECRETTOKEN', cookie: 'session=SECRETCOOKIE' },
    body: JSON.stringify({ email: 'BODYMARKER@example.com' }),
  });
  expect(await response.text()).toBe('got it');
  const line = await lineOf(response.headers.get('x-request-id') ?? '');
  expect(line.req.method).toBe('POST');
  expect(written.join('\n')).not.toMatch(/SECRET|BODYMARKER/);
});

it('never logs a credential put in the query string, and keeps the rest of the URL', async () => {
  const response = await fetch(
    `${base}/200?page=2&token=SECRET1&api_key=SECRET2&admin_token=SECRET3&Password=SECRET4&secret=SECRET5&key=SECRET6&sort=asc`,
  );
  const line = await lineOf(response.headers.get('x-request-id') ?? '');
  expect(line.req.url).toBe(
    '/200?page=2&token=[redacted]&api_key=[redacted]&admin_token=[redacted]&Password=[redacted]&secret=[redacted]&key=[redacted]&sort=asc',
  );
  expect(written.join('\n')).not.toMatch(/SECRET/);
});

it('never logs an address: in the path or the query, written or percent-encoded, it reads h:<keyed hash>@domain', async () => {
  // The documented form: the first 8 hex digits of HMAC-SHA256(LOG_HASH_KEY, the address in lower case).
  const masked = `h:${createHmac('sha256', HASH_KEY).update('jane.doe+tag@example.com').digest('hex').slice(0, 8)}@example.com`;
  const urls = [
    '/200/v1/email-validation/Jane.Doe+tag@Example.com',
    '/200/v1/email-validation/jane.doe%2Btag%40example.com',
    '/200/v1/email-validation/x?email=jane.doe%2Btag%40example.com&page=2',
  ];
  const logged: string[] = [];
  for (const url of urls) {
    const response = await fetch(`${base}${url}`);
    logged.push((await lineOf(response.headers.get('x-request-id') ?? '')).req.url);
  }
  expect(logged).toEqual([
    `/200/v1/email-validation/${masked}`,
    `/200/v1/email-validation/${masked}`,
    `/200/v1/email-validation/x?email=${masked}&page=2`,
  ]);
  expect(written.join('\n')).not.toMatch(/jane/i);
});

it('runs what comes next in the request context', async () => {
  const response = await fetch(`${base}/200`, { headers: { 'X-Request-Id': 'context-check' } });
  await response.text();
  expect(contexts.get('context-check')).toBe('context-check');
});

it('logs a request the client gave up on at warn, as aborted', async () => {
  const reached = new Promise<void>((resolve) => (handlerReached = resolve));
  const client = request(`${base}/hang`, { headers: { 'X-Request-Id': 'gave-up' } });
  client.on('error', () => undefined);
  client.end();
  await reached;
  client.destroy();
  expect(await lineOf('gave-up')).toMatchObject({ level: 40, msg: 'request aborted', req: { url: '/hang' } });
});
