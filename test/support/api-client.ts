import { randomBytes } from 'node:crypto';
/** A small HTTP client for e2e tests: one call, its status, headers and parsed body. */
export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Gives up on the request (a test's bound on how long an answer may take). */
  signal?: AbortSignal;
}

export function apiClient(baseUrl: string) {
  return async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: ApiOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers['X-API-Key'] = options.key;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body, signal: options.signal });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T };
  };
}

export type ApiCall = ReturnType<typeof apiClient>;

/** A new account at a lab domain (the sign-up check must reach it): its key and id. */
export async function signupAt(api: ApiCall, domain: string): Promise<{ apiKey: string; accountId: string }> {
  const response = await api<{ apiKey: string; account: { id: string } }>('POST', '/v1/accounts', {
    body: { email: `owner.${randomBytes(4).toString('hex')}@${domain}` },
  });
  expect(response.status).toBe(201);
  return { apiKey: response.body.apiKey, accountId: response.body.account.id };
}

/** Uploads `addresses` as a one-column CSV list (multipart, as a customer's client does); its id once accepted (202). */
export async function uploadAddresses(
  baseUrl: string,
  apiKey: string,
  addresses: string[],
  fields: Record<string, string> = {},
): Promise<string> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([`email\n${addresses.join('\n')}\n`], { type: 'text/csv' }), 'leads.csv');
  const response = await fetch(`${baseUrl}/v1/lists`, { method: 'POST', headers: { 'X-API-Key': apiKey }, body: form });
  expect(response.status).toBe(202);
  return ((await response.json()) as { id: string }).id;
}
