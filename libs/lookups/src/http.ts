import type { Outbound } from '@mailguard/net';

export interface HttpGetOptions {
  signal: AbortSignal;
  accept: string;
}

/** The HTTP request the look-ups need; injected so that tests and workers share one path. */
export type HttpGet = (url: string, options: HttpGetOptions) => Promise<{ status: number; json(): Promise<unknown> }>;

const MAX_REDIRECTS = 5;

/** GET through the process's outbound HTTP: redirects followed, every hop's address checked (ALLOW_PRIVATE_MX). */
export function outboundGet(outbound: Outbound): HttpGet {
  return async (url, options) => {
    const response = await outbound.request(url, {
      headers: { accept: options.accept },
      signal: options.signal,
      maxRedirects: MAX_REDIRECTS,
    });
    return { status: response.status, json: async () => JSON.parse(await response.text()) as unknown };
  };
}
