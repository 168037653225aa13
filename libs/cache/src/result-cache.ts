import type { Redis } from 'ioredis';
import { parseAddress } from '@mailguard/email';
import { MemoryTtlStore, type VerificationResult } from '@mailguard/engine';

/** Verification results by `resultKey(email)`, for CACHE_TTL_SECONDS. */
export interface ResultCache {
  get(key: string): Promise<VerificationResult | null>;
  set(key: string, result: VerificationResult, ttlSeconds: number): Promise<void>;
  /** Many results at once (a list's group): one round trip to Redis. */
  setMany(entries: Array<{ key: string; result: VerificationResult }>, ttlSeconds: number): Promise<void>;
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
    // Answers cached before subStatus existed carry none: null says "nothing finer", as the API allows.
    if (!raw) return null;
    const result = JSON.parse(raw) as VerificationResult;
    return { ...result, subStatus: result.subStatus ?? null };
  }

  async set(key: string, result: VerificationResult, ttlSeconds: number): Promise<void> {
    if (ttlSeconds > 0) await this.redis.set(`${this.prefix}result:${key}`, JSON.stringify(result), 'EX', ttlSeconds);
  }

  async setMany(entries: Array<{ key: string; result: VerificationResult }>, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0 || entries.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const { key, result } of entries)
      pipeline.set(`${this.prefix}result:${key}`, JSON.stringify(result), 'EX', ttlSeconds);
    for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(`${this.prefix}result:${key}`);
  }
}

/** The result cache of the single-process (embedded) mode. */
export class MemoryResultCache implements ResultCache {
  private readonly store = new MemoryTtlStore<VerificationResult>(100_000);

  async get(key: string): Promise<VerificationResult | null> {
    return (await this.store.get(key)) ?? null;
  }

  set(key: string, result: VerificationResult, ttlSeconds: number): Promise<void> {
    return this.store.set(key, result, ttlSeconds * 1000);
  }

  async setMany(entries: Array<{ key: string; result: VerificationResult }>, ttlSeconds: number): Promise<void> {
    for (const { key, result } of entries) await this.set(key, result, ttlSeconds);
  }

  delete(key: string): Promise<void> {
    return this.store.delete(key);
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
