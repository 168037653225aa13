/** The HTTP GET the look-ups need; injected (Node's fetch by default) so tests and workers share one path. */
export type HttpGet = (url: string, options: { signal: AbortSignal; accept: string }) => Promise<{ status: number; json(): Promise<unknown> }>;

export const fetchGet: HttpGet = (url, { signal, accept }) => fetch(url, { signal, headers: { accept }, redirect: 'follow' });
