/**
 * The dashboard's only way to the service: the public API (docs/api.md#endpoints), same origin, the signed-in
 * key in `X-API-Key`. Every refusal becomes an ApiError whose `kind` the pages turn into words.
 */
export type Scope = 'full' | 'verify' | 'lists' | 'read-only';

export type ErrorKind = 'credits' | 'rate' | 'scope' | 'auth' | 'network' | 'input' | 'other';

export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly status: number,
    /** Seconds to wait before trying again (429's Retry-After). */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

function kindOf(status: number): ErrorKind {
  if (status === 402) return 'credits';
  if (status === 429) return 'rate';
  if (status === 403) return 'scope';
  if (status === 401) return 'auth';
  if (status >= 400 && status < 500) return 'input';
  return 'other';
}

export interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  total: number;
}

export interface Account {
  id: string;
  email: string;
  credits: number;
}

export interface Signup {
  account: Account;
  apiKey: string;
  webhookSecret: string;
}

export interface KeyRecord {
  id: string;
  name: string;
  prefix: string;
  scope: Scope;
  type: 'secret' | 'widget';
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface Credits {
  balance: number;
  held: number;
}

export interface Usage {
  date: string;
  kind: string;
  checks: number;
  credits: number;
}

export interface Transaction {
  id: string | number;
  delta: number;
  reason: string;
  ref: string | null;
  createdAt: string;
  balanceAfter: number;
}

export interface Check {
  [field: string]: unknown;
}

export interface VerificationResult {
  email: string;
  domain: string;
  status: 'valid' | 'risky' | 'invalid';
  confidence: number | null;
  score: number;
  reason: string;
  subStatus: string | null;
  reachable: string;
  suggestion: string | null;
  isFree: boolean;
  isRole: boolean;
  isDisposable: boolean;
  hasGravatar: boolean;
  checks: Record<string, Check>;
}

export interface List {
  id: string;
  name: string;
  status: 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';
  total: number;
  processed: number;
  duplicates: number;
  percent: number;
  etaSeconds: number | null;
  counts: { valid: number; risky: number; invalid: number };
  creditsHeld: number;
  creditsCharged: number;
  createdAt: string;
  completedAt: string | null;
  /** When retention erased its rows: its results are gone (410), the list and its counts stay. */
  expiredAt: string | null;
  error: string | null;
  webhook: {
    status: 'pending' | 'delivered' | 'failed';
    attempts: number;
    nextAttemptAt: string | null;
    lastError: string | null;
  } | null;
}

export interface FinderAnswer {
  email: string | null;
  confidence: number;
  pattern: string | null;
  result: VerificationResult | null;
  alternatives: Array<{ email: string; confidence: number }>;
}

export interface DomainInsight {
  domain: string;
  catchAll: boolean | null;
  pattern: string | null;
  provider: string | null;
  mx: Array<{ exchange: string; priority: number }>;
  confidence: number;
}

export interface WidgetDefaults {
  blockDisposable: boolean;
  blockFree: boolean;
  lang: string;
  messages: Record<string, string>;
}

export interface WidgetSettings {
  allowedOrigins: string[];
  defaults: WidgetDefaults;
}

interface CallOptions {
  body?: unknown;
  form?: FormData;
  /** The raw response (downloads) instead of parsed JSON. */
  raw?: boolean;
}

const API = '/v1';

export async function call<T>(key: string | null, method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (key) headers['X-API-Key'] = key;
  let body: BodyInit | undefined;
  if (options.form) body = options.form;
  else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(`${API}${path}`, { method, headers, body });
  } catch {
    throw new ApiError('network', 'The service could not be reached.', 0);
  }
  if (!response.ok) {
    const text = await response.text();
    let message = `The service answered ${response.status}.`;
    try {
      const parsed = JSON.parse(text) as { error?: string };
      if (parsed.error) message = parsed.error;
    } catch {
      // Not JSON (a proxy's page): the status line says enough.
    }
    const retry = Number(response.headers.get('Retry-After'));
    throw new ApiError(
      kindOf(response.status),
      message,
      response.status,
      Number.isFinite(retry) && retry > 0 ? retry : null,
    );
  }
  if (options.raw) return response as T;
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** Which scope a pasted key has, found with free reads: #16 lists keys for full/read-only, #5 lists for lists. */
export async function detectScope(key: string): Promise<Scope> {
  try {
    const keys = await call<{ data: KeyRecord[] }>(key, 'GET', '/keys');
    const own = keys.data.find((record) => !record.revokedAt && key.startsWith(record.prefix));
    return own?.scope ?? 'read-only';
  } catch (error) {
    if (!(error instanceof ApiError) || error.kind !== 'scope') throw error;
  }
  try {
    await call(key, 'GET', '/lists?limit=1');
    return 'lists';
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'scope') return 'verify';
    throw error;
  }
}
