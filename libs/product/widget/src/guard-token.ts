import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signed verdict the widget puts in the form's `guard_token` field, so the site's server can
 * confirm that the visitor's address went through the check (README: "Confirming on your server").
 * Format: base64url(JSON claims) "." base64url(HMAC-SHA256(webhook secret, first part)).
 */
export interface GuardTokenClaims {
  /** The address as the service normalised it. */
  email: string;
  /** The verdict (docs/api.md#the-result-object): valid | risky | invalid, and its reason. */
  status: string;
  reason: string;
  disposable: boolean;
  free: boolean;
  role: boolean;
  catchAll: boolean;
  /** Issued at, Unix seconds. */
  iat: number;
}

const encode = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export function signGuardToken(claims: GuardTokenClaims, secret: string): string {
  const body = encode(JSON.stringify(claims));
  return `${body}.${encode(createHmac('sha256', secret).update(body).digest())}`;
}

/** The claims when the signature holds and the token is at most `maxAgeSeconds` old; else null. */
export function verifyGuardToken(
  token: string,
  secret: string,
  maxAgeSeconds = 3_600,
  now = Date.now(),
): GuardTokenClaims | null {
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return null;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as GuardTokenClaims;
    return typeof claims.iat === 'number' && now / 1000 - claims.iat <= maxAgeSeconds ? claims : null;
  } catch {
    return null;
  }
}
