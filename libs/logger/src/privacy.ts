import { createHmac } from 'node:crypto';
import type { LogConfig } from '@mailguard/config';

const SECRET_NAME = 'token|key|api[_-]?key|password|secret|[a-z0-9]*[_-]token';
/** Query parameters whose values are credentials: a token pasted into a URL must not reach the log. */
export const SECRET_PARAMETER = new RegExp(`^(?:${SECRET_NAME})$`, 'i');

const REDACTED = '[redacted]';
/** Characters of an address's local part, and the `%XX` of one written into a URL. */
const LOCAL = "[\\p{L}\\p{N}.!#$%&'*+=?^_`{|}~-]";
/**
 * An address anywhere in a line, its `@` written or percent-encoded: the local part starts where no
 * local-part character precedes it (not at `/`, so `node_modules/@scope/pkg` is no address), the
 * domain has a dot and a top-level label of letters.
 */
const ADDRESS = new RegExp(
  `(?<!${LOCAL})(${LOCAL}{1,64})(?:@|%40)((?:[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?\\.)+\\p{L}[\\p{L}\\p{N}-]{1,62})`,
  'giu',
);
/** What `address()` writes: kept as it is when a line passes a second time. */
const MASKED = /h:$/;
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

  constructor(config: Pick<LogConfig, 'hashKey' | 'secrets'>) {
    this.key = config.hashKey;
    // Longest first: a secret that contains another is replaced whole.
    this.secrets = [...config.secrets].sort((a, b) => b.length - a.length);
  }

  /** `Jane.Doe@Example.com` → `h:3f9a1c2b@example.com`: the domain kept, the local part a keyed hash. */
  address(address: string): string {
    const at = address.lastIndexOf('@');
    const normalized = address.toLowerCase();
    const hash = createHmac('sha256', this.key).update(normalized).digest('hex').slice(0, 8);
    return `h:${hash}@${normalized.slice(at + 1)}`;
  }

  /**
   * The last line of defence, run on every line a logger writes: whatever a call site let through is
   * masked here. Cheap checks first, since every request's line passes here.
   */
  line(text: string): string {
    let line = text;
    for (const secret of this.secrets) if (line.includes(secret)) line = line.split(secret).join(REDACTED);
    if (line.includes('://')) line = line.replace(URL_PASSWORD, `$1${REDACTED}@`);
    if (line.includes('@') || line.includes('%40')) line = line.replace(ADDRESS, this.maskMatch);
    if (line.includes('mg_')) line = line.replace(API_KEY, `$1${REDACTED}`);
    if (line.includes('whsec_')) line = line.replace(WEBHOOK_SECRET, `$1${REDACTED}`);
    if (line.includes('Bearer ') || line.includes('Basic ')) line = line.replace(AUTHORIZATION, `$1 ${REDACTED}`);
    if (line.includes('=')) line = line.replace(QUERY_CREDENTIAL, `$1${REDACTED}`);
    if (CREDENTIAL_HINT.test(line)) line = line.replace(CREDENTIAL_FIELD, `$1"${REDACTED}"`);
    return line;
  }

  private readonly maskMatch = (
    match: string,
    local: string,
    domain: string,
    offset: number,
    whole: string,
  ): string => {
    if (HASH.test(local) && MASKED.test(whole.slice(Math.max(0, offset - 2), offset))) return match;
    let decoded = local;
    try {
      decoded = decodeURIComponent(local);
    } catch {
      // A `%` that is no escape: hashed as written.
    }
    return this.address(`${decoded}@${domain}`);
  };
}
