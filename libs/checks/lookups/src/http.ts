import type { Outbound } from '@mailguard/net';

export interface HttpGetOptions {
  signal: AbortSignal;
  accept: string;
}

/** The HTTP request the look-ups need; injected so that tests and workers share one path. */
export type HttpGet = (url: string, options: HttpGetOptions) => Promise<{ status: number; json(): Promise<unknown> }>;

const MAX_REDIRECTS = 5;

/**
 * A look-up with a time limit: its signal aborts after `ms`, the timer cleared as soon as the
 * look-up settles (AbortSignal.timeout's fires regardless, seconds later, making its DOMException:
 * a list asks thousands of avatars a second).
 */
export async function withTimeout<T>(ms: number, lookUp: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    return await lookUp(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

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
