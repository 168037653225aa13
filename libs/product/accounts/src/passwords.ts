import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { AppError } from '@mailguard/errors';

/**
 * People's passwords (docs/api.md#accounts-sessions-and-members): the rules a new password must meet
 * and its memory-hard hash, in one place.
 *
 * The hash is scrypt from Node's own crypto (OpenSSL), stored self-describing as
 * `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64url), so the cost can be raised later and old hashes still
 * verify. N = 2^15, r = 8 takes 32 MiB and some 50–100 ms per hash, on libuv's thread pool: never on the
 * event loop.
 */

export const PASSWORD_MIN_LENGTH = 10;
/** Longer input is refused before it is hashed: no one's password, and hashing it is work for nothing. */
export const PASSWORD_MAX_LENGTH = 256;

const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** Bounds of the parameters a stored hash may name: a tampered row must not make verification run for minutes. */
const MAX_N = 2 ** 20;

/** The problem with a new password, or null when it may be used. */
export function passwordProblem(password: unknown, email: string): string | null {
  if (typeof password !== 'string') return 'password must be a string';
  if ([...password].length < PASSWORD_MIN_LENGTH) return `password must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `password must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return 'password must not be the email address';
  return null;
}

/** Throws 400 with the rule a new password breaks. */
export function assertPasswordAllowed(password: unknown, email: string): asserts password is string {
  const problem = passwordProblem(password, email);
  if (problem) throw new AppError('bad_request', problem);
}

function derive(password: string, salt: Buffer, length: number, cost: typeof COST): Promise<Buffer> {
  // maxmem: scrypt needs 128 * N * r bytes; OpenSSL's default cap (32 MiB) is just below that.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** The stored form of a password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(password, salt, KEY_LENGTH, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

interface Parsed {
  cost: typeof COST;
  salt: Buffer;
  hash: Buffer;
}

function parse(stored: string): Parsed | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (![N, r, p].every(Number.isSafeInteger) || N < 2 || N > MAX_N || (N & (N - 1)) !== 0) return null;
  if (r < 1 || r > 32 || p < 1 || p > 16) return null;
  const salt = Buffer.from(parts[4], 'base64url');
  const hash = Buffer.from(parts[5], 'base64url');
  if (salt.length < 8 || hash.length < 16 || hash.length > 128) return null;
  return { cost: { N, r, p }, salt, hash };
}

/** A hash of nothing anyone knows: verified against when no login matches, so both cases take the same time. */
const DECOY = `scrypt$${COST.N}$${COST.r}$${COST.p}$${Buffer.alloc(SALT_LENGTH, 7).toString('base64url')}$${Buffer.alloc(KEY_LENGTH).toString('base64url')}`;

/**
 * Whether `password` matches `stored`, compared in constant time. `stored` null (no such login, or a
 * login without a password) still costs one hash, and answers false.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const own = stored === null ? null : parse(stored);
  const parsed = own ?? (parse(DECOY) as Parsed);
  const candidate = await derive(password, parsed.salt, parsed.hash.length, parsed.cost);
  return timingSafeEqual(candidate, parsed.hash) && own !== null;
}
