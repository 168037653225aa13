import type { Redis } from 'ioredis';
import type { VerificationResult } from '@mailguard/engine';

/** Verification results by address, for CACHE_TTL_SECONDS. */
export interface ResultCache {
  get(email: string): Promise<VerificationResult | null>;
  set(email: string, result: VerificationResult, ttlSeconds: number): Promise<void>;
  delete(email: string): Promise<void>;
}

/** Mailbox names are compared case-insensitively in practice: one cache entry per address. */
const keyOf = (email: string) => email.toLowerCase();

export class RedisResultCache implements ResultCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(email: string): Promise<VerificationResult | null> {
    const raw = await this.redis.get(`${this.prefix}result:${keyOf(email)}`);
    return raw ? (JSON.parse(raw) as VerificationResult) : null;
  }

  async set(email: string, result: VerificationResult, ttlSeconds: number): Promise<void> {
    if (ttlSeconds > 0) await this.redis.set(`${this.prefix}result:${keyOf(email)}`, JSON.stringify(result), 'EX', ttlSeconds);
  }

  async delete(email: string): Promise<void> {
    await this.redis.del(`${this.prefix}result:${keyOf(email)}`);
  }
}

export class MemoryResultCache implements ResultCache {
  private readonly entries = new Map<string, { result: VerificationResult; expires: number }>();

  constructor(
    private readonly maxEntries = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(email: string): Promise<VerificationResult | null> {
    const entry = this.entries.get(keyOf(email));
    if (!entry) return null;
    if (entry.expires > this.now()) return entry.result;
    this.entries.delete(keyOf(email));
    return null;
  }

  async set(email: string, result: VerificationResult, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyOf(email), { result, expires: this.now() + ttlSeconds * 1000 });
  }

  async delete(email: string): Promise<void> {
    this.entries.delete(keyOf(email));
  }
}
