import type { Redis } from 'ioredis';
import { parseAddress } from '@mailguard/email';
import { MemoryTtlStore, type VerificationResult } from '@mailguard/engine';

/** Verification results by `resultKey(email)`, for CACHE_TTL_SECONDS. */
export interface ResultCache {
  get(key: string): Promise<VerificationResult | null>;
  /**
   * The entry as the JSON text of its answer (`cached: true`, `subStatus` null when it has none),
   * exactly what `JSON.stringify({ ...get(key), cached: true })` gives: a cached check serves these
   * bytes and stores them as its usage row without parsing or serialising the result.
   */
  getAnswer(key: string): Promise<string | null>;
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

const CACHED = '"cached":';
const CACHED_FALSE = '"cached":false';
const SUB_STATUS = '"subStatus":';

/** Where `part` occurs in `text` when it occurs exactly once, else -1. */
function onlyAt(text: string, part: string): number {
  const at = text.indexOf(part);
  return at >= 0 && text.indexOf(part, at + part.length) < 0 ? at : -1;
}

/** A result's cached answer, the slow way: marked and serialised. */
function answerOf(result: VerificationResult): string {
  return JSON.stringify({ ...result, subStatus: result.subStatus ?? null, cached: true });
}

/**
 * A stored result's JSON text (as `JSON.stringify` wrote it) as its cached answer's: `"cached":false`
 * becomes `"cached":true` in place. An unescaped `"` never occurs inside a JSON string, so a key's
 * text can only be that key; the result has no nested key of either name, so a key that occurs once
 * is the top-level one. Anything else (an answer cached before subStatus existed) is parsed and
 * serialised again.
 */
export function answerJson(stored: string): string {
  const at = onlyAt(stored, CACHED);
  if (at < 0 || !stored.startsWith(CACHED_FALSE, at) || onlyAt(stored, SUB_STATUS) < 0)
    return answerOf(JSON.parse(stored) as VerificationResult);
  return `${stored.slice(0, at)}"cached":true${stored.slice(at + CACHED_FALSE.length)}`;
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

  async getAnswer(key: string): Promise<string | null> {
    const raw = await this.redis.get(`${this.prefix}result:${key}`);
    return raw ? answerJson(raw) : null;
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

  async getAnswer(key: string): Promise<string | null> {
    const result = await this.store.get(key);
    return result ? answerOf(result) : null;
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
