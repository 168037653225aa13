import { createHmac } from 'node:crypto';
import type { LogConfig } from '@mailguard/config';

const SECRET_NAME = 'token|key|api[_-]?key|password|secret|[a-z0-9]*[_-]token';
/** Query parameters whose values are credentials: a token pasted into a URL must not reach the log. */
export const SECRET_PARAMETER = new RegExp(`^(?:${SECRET_NAME})$`, 'i');

const REDACTED = '[redacted]';
/** A character of an address's local part (a `%` too: the `%XX` of one written into a URL). */
const LOCAL_CHARACTER = /[\p{L}\p{N}.!#$%&'*+=?^_`{|}~-]/u;
/** The domain right after an `@`: labels, a dot, a top-level label that starts with a letter. */
const DOMAIN = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}[\p{L}\p{N}-]{1,62}/u;
/** What `address()` writes, kept as it is when a line passes a second time. */
const HASH = /^[0-9a-f]{8}$/;
/** Longer than the 12-character prefix the API shows of a key (`mg_live_aB3d`), which stays readable. */
const API_KEY = /\b(mg_(?:live|widget)_)[A-Za-z0-9]{5,}/g;
const WEBHOOK_SECRET = /\b(whsec_)[A-Za-z0-9]{5,}/g;
const AUTHORIZATION = /\b(Bearer|Basic) [A-Za-z0-9._~+/=-]{4,}/g;
const QUERY_CREDENTIAL = new RegExp(`([?&;](?:${SECRET_NAME})=)[^&#\\s"'\\\\]*`, 'gi');
/** A JSON field of the line whose name says it holds a credential, and its string value. */
const CREDENTIAL_FIELD =
  /("(?:[a-z0-9_-]*(?:password|passwd|secret|token)|authorization|cookie|x-api-key|api[_-]?key)":)"(?:[^"\\]|\\.)*"/gi;
/** `scheme://user:password@host`: the password of a connection string or proxy URL. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@"]*:)[^\s/@"]+@/gi;
const CREDENTIAL_HINT = /token|secret|passw|authoriz|cookie|api.?key/i;
/** Whether any rule below may apply: most lines (a request without an address or a query) skip them all at once. */
const SUSPECT = /[@=]|%40|:\/\/|mg_|whsec_|Bearer |Basic |token|secret|passw|authoriz|cookie|api.?key/i;
/** Masked addresses remembered (one address tends to recur: its request, its jobs, its answer), up to this many. */
const REMEMBERED = 10_000;

/**
 * What no log line shows: an address is replaced by `h:<8 hex>@<domain>`, its local part a hash keyed
 * by the deployment's LOG_HASH_KEY (the same address reads the same in every line and every process,
 * so operators can follow one without reading it); API keys, webhook secrets, bearer and basic
 * credentials, credential query parameters and fields, URL passwords and the configuration's own
 * secrets become `[redacted]`.
 */
export class LogPrivacy {
  private readonly key: string;
  private readonly secrets: string[];
  private readonly masked = new Map<string, string>();

  constructor(config: Pick<LogConfig, 'hashKey' | 'secrets'>) {
    this.key = config.hashKey;
    // Longest first: a secret that contains another is replaced whole.
    this.secrets = [...config.secrets].sort((a, b) => b.length - a.length);
  }

  /** `Jane.Doe@Example.com` → `h:3f9a1c2b@example.com`: the domain kept, the local part a keyed hash. */
  address(address: string): string {
    const normalized = address.toLowerCase();
    let masked = this.masked.get(normalized);
    if (masked === undefined) {
      const hash = createHmac('sha256', this.key).update(normalized).digest('hex').slice(0, 8);
      masked = `h:${hash}@${normalized.slice(normalized.lastIndexOf('@') + 1)}`;
      if (this.masked.size >= REMEMBERED) this.masked.clear();
      this.masked.set(normalized, masked);
    }
    return masked;
  }

  /**
   * The last line of defence, run on every line a logger writes: whatever a call site let through is
   * masked here. Cheap checks first, since every request's line passes here.
   */
  line(text: string): string {
    let line = text;
    for (const secret of this.secrets) if (line.includes(secret)) line = line.split(secret).join(REDACTED);
    if (!SUSPECT.test(line)) return line;
    if (line.includes('://')) line = line.replace(URL_PASSWORD, `$1${REDACTED}@`);
    line = this.maskAddresses(line);
    if (line.includes('mg_')) line = line.replace(API_KEY, `$1${REDACTED}`);
    if (line.includes('whsec_')) line = line.replace(WEBHOOK_SECRET, `$1${REDACTED}`);
    if (line.includes('Bearer ') || line.includes('Basic ')) line = line.replace(AUTHORIZATION, `$1 ${REDACTED}`);
    if (line.includes('=')) line = line.replace(QUERY_CREDENTIAL, `$1${REDACTED}`);
    if (CREDENTIAL_HINT.test(line)) line = line.replace(CREDENTIAL_FIELD, `$1"${REDACTED}"`);
    return line;
  }

  /**
   * Every address in the line masked. Found from its `@` (or `%40`) outwards, not by one regular
   * expression over the line: that costs tens of microseconds a line, and every request writes one.
   */
  private maskAddresses(line: string): string {
    let out = '';
    let done = 0;
    for (let at = nextAt(line, 0); at >= 0;) {
      const after = at + (line[at] === '@' ? 1 : 3);
      let start = at;
      while (start > done && LOCAL_CHARACTER.test(line[start - 1])) start--;
      const local = line.slice(start, at);
      const domain = DOMAIN.exec(line.slice(after, after + 255))?.[0];
      const alreadyMasked = HASH.test(local) && start >= 2 && line.slice(start - 2, start) === 'h:';
      if (local !== '' && domain !== undefined && !alreadyMasked) {
        out += line.slice(done, start) + this.address(`${decoded(local)}@${domain}`);
        done = after + domain.length;
      }
      at = nextAt(line, Math.max(after, done));
    }
    return done === 0 ? line : out + line.slice(done);
  }
}

/** The next `@` or `%40` from `from`, or -1. */
function nextAt(line: string, from: number): number {
  const raw = line.indexOf('@', from);
  const encoded = line.indexOf('%40', from);
  return raw < 0 ? encoded : encoded < 0 ? raw : Math.min(raw, encoded);
}

function decoded(local: string): string {
  if (!local.includes('%')) return local;
  try {
    return decodeURIComponent(local);
  } catch {
    // A `%` that is no escape: hashed as written.
    return local;
  }
}
