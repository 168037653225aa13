import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpGetOptions {
  signal: AbortSignal;
  accept: string;
}

/** The HTTP request the look-ups need; injected so that tests and workers share one path. */
export type HttpGet = (url: string, options: HttpGetOptions) => Promise<{ status: number; json(): Promise<unknown> }>;

const MAX_REDIRECTS = 5;
/** Kept-alive connections: a list asks the same avatar and RDAP hosts thousands of times. */
const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 64 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }) };

/** node:http with keep-alive, following redirects; far lighter per request than fetch. */
export const nodeGet: HttpGet = (url, options) => get(url, options, 0);

async function get(url: string, options: HttpGetOptions, redirects: number): ReturnType<HttpGet> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(target, { headers: { accept: options.accept }, agent: secure ? agents.https : agents.http, signal: options.signal }, resolve);
    request.on('error', reject);
    request.end();
  });
  const location = response.headers.location;
  if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location && redirects < MAX_REDIRECTS) {
    response.resume();
    return get(new URL(location, target).toString(), options, redirects + 1);
  }
  const chunks: Buffer[] = [];
  const body = new Promise<string>((resolve, reject) => {
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
  await body;
  return { status: response.statusCode ?? 0, json: async () => JSON.parse(await body) as unknown };
}
