/**
 * The dashboard's only way to the service: the public API (docs/api.md#endpoints) and the session routes under
 * /auth, same origin. Signed in with a key, the key goes in `X-API-Key`; signed in with a password, the session
 * cookie goes along (`credentials: 'same-origin'`) and every request that is not a GET carries `X-CSRF-Token`,
 * the value of the readable `mg_csrf` cookie. Every refusal becomes an ApiError whose `kind` the pages turn into
 * words; a 401 on a signed-in call ends the session once, through `onSessionEnded`.
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

/** A member's role (§ accounts and members in docs/api.md); the owner has none and every right. */
export type Role = 'admin' | 'developer' | 'billing';

/** The account a password session belongs to, and the person's role (null for the owner). */
export interface LoginAccount {
  id: string;
  email: string;
  name?: string | null;
  role?: Role | null;
}

/** What `POST /auth/login` and `POST /auth/invitations/accept` answer: the account and who signed in. */
export interface SignedIn {
  account: { id: string; email: string; name: string | null };
  user: { email: string; role: Role | 'owner' };
}

/** The session a sign-in starts, from the service's answer. */
export function loginSession({ account, user }: SignedIn): Session {
  const role = user.role === 'owner' ? null : user.role;
  return { kind: 'login', key: null, scope: roleScope(role), account: { ...account, email: user.email, role } };
}

/**
 * Who is signed in: a pasted key (kept in sessionStorage) or a password session (the cookie; only this
 * non-secret description is kept in sessionStorage, so a reload keeps the tab signed in).
 */
export type Session =
  { kind: 'key'; key: string; scope: Scope } | { kind: 'login'; key: null; scope: Scope; account: LoginAccount };

export interface SessionRecord {
  id: string;
  device?: string | null;
  address?: string | null;
  createdAt: string;
  lastSeenAt?: string | null;
  current?: boolean;
}

export interface Member {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  /** null while the invitation is open. */
  acceptedAt: string | null;
}

export interface AuditEntry {
  id: string | number;
  actor: string | null;
  action: string;
  target: string | null;
  createdAt: string;
  address?: string | null;
  requestId?: string | null;
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
  status: 'queued' | 'processing' | 'paused' | 'completed' | 'failed' | 'cancelled';
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
  /** Rows waiting for a greylisting retry (null when none, or from a service that does not say). */
  greylisted?: { rows: number; nextRetryAt: string } | null;
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
  /** A sign-in attempt: a 401 means the credentials were not accepted, not that a session ended. */
  signingIn?: boolean;
}

const API = '/v1';

/** The readable CSRF cookie a password session sets beside its HttpOnly session cookie. */
export function csrfToken(): string | null {
  const found = document.cookie.split(/;\s*/).find((pair) => pair.startsWith('mg_csrf='));
  return found ? decodeURIComponent(found.slice('mg_csrf='.length)) : null;
}

/** Called once when a signed-in call answers 401: the key was revoked or the session has ended. */
let sessionEnded: (() => void) | null = null;
export function onSessionEnded(handler: (() => void) | null): void {
  sessionEnded = handler;
}

/** The headers a request carries for its credential: the key, or (password session, not a GET) the CSRF token. */
export function credentialHeaders(key: string | null, method: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (key) headers['X-API-Key'] = key;
  else if (method !== 'GET' && method !== 'HEAD') {
    const token = csrfToken();
    if (token) headers['X-CSRF-Token'] = token;
  }
  return headers;
}

/** `path` under /v1, or a path from the host's root (`/auth/…`) when it starts with `//`. */
export async function call<T>(key: string | null, method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers = credentialHeaders(key, method);
  let body: BodyInit | undefined;
  if (options.form) body = options.form;
  else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const url = path.startsWith('//') ? path.slice(1) : `${API}${path}`;
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body, credentials: 'same-origin' });
  } catch {
    throw new ApiError('network', 'The service could not be reached.', 0);
  }
  if (response.status === 401 && !options.signingIn && sessionEnded) {
    const end = sessionEnded;
    sessionEnded = null;
    end();
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
    const keys = await call<{ data: KeyRecord[] }>(key, 'GET', '/keys', { signingIn: true });
    const own = keys.data.find((record) => !record.revokedAt && key.startsWith(record.prefix));
    return own?.scope ?? 'read-only';
  } catch (error) {
    if (!(error instanceof ApiError) || error.kind !== 'scope') throw error;
  }
  try {
    await call(key, 'GET', '/lists?limit=1', { signingIn: true });
    return 'lists';
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'scope') return 'verify';
    throw error;
  }
}

/** What a member's role may see (docs/dashboard.md): billing only credits; developer everything but billing. */
export function rights(session: Session): { billing: boolean; build: boolean; admin: boolean } {
  const role = session.kind === 'login' ? (session.account.role ?? null) : null;
  return {
    billing: role !== 'developer',
    build: role !== 'billing',
    admin: session.kind === 'login' && (role === null || role === 'admin'),
  };
}

/** The scope a password session acts with: its role's rights (billing reads only). */
export const roleScope = (role: Role | null | undefined): Scope => (role === 'billing' ? 'read-only' : 'full');

const NUMBER = new Intl.NumberFormat();
/** Every count and amount the dashboard shows, grouped in the reader's locale. */
export const num = (value: number) => NUMBER.format(value);
