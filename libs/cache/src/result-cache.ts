import type { Redis } from 'ioredis';
import { parseAddress } from '@mailguard/email';
import type { VerificationResult } from '@mailguard/engine';

/** Verification results by `resultKey(email)`, for CACHE_TTL_SECONDS. */
export interface ResultCache {
  get(key: string): Promise<VerificationResult | null>;
  set(key: string, result: VerificationResult, ttlSeconds: number): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * One entry (and one charge) per mailbox, however it was typed: normalised, and compared without
 * case (mail providers treat local parts case-insensitively in practice).
 */
export function resultKey(email: string): string {
  return parseAddress(email).email.toLowerCase();
}


export class RedisResultCache implements ResultCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<VerificationResult | null> {
    const raw = await this.redis.get(`${this.prefix}result:${key}`);
    return raw ? (JSON.parse(raw) as VerificationResult) : null;
  }

  async set(key: string, result: VerificationResult, ttlSeconds: number): Promise<void> {
    if (ttlSeconds > 0) await this.redis.set(`${this.prefix}result:${key}`, JSON.stringify(result), 'EX', ttlSeconds);
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(`${this.prefix}result:${key}`);
  }
}

export class MemoryResultCache implements ResultCache {
  private readonly entries = new Map<string, { result: VerificationResult; expires: number }>();

  constructor(
    private readonly maxEntries = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string): Promise<VerificationResult | null> {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (entry.expires > this.now()) return entry.result;
    this.entries.delete(key);
    return null;
  }

  async set(key: string, result: VerificationResult, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { result, expires: this.now() + ttlSeconds * 1000 });
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

/** JSON values by key with a TTL in Redis: the shared domain-facts cache of the distributed workers. */
export class RedisJsonStore<T> {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<T | undefined> {
    const raw = await this.redis.get(`${this.prefix}${key}`);
    return raw ? (JSON.parse(raw) as T) : undefined;
  }

  async set(key: string, value: T, ttlMs: number): Promise<void> {
    if (ttlMs > 0) await this.redis.set(`${this.prefix}${key}`, JSON.stringify(value), 'PX', ttlMs);
  }
}
