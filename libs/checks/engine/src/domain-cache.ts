/**
 * Domain-level facts (MX, catch-all, authentication records, age) cached with a TTL, so a list of
 * addresses at one domain does not repeat them. The in-memory store serves one process (it is also
 * the in-process result cache); a shared store (Redis) implements the same interface.
 */
export interface DomainCacheStore<T> {
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T, ttlMs: number): Promise<void>;
}

export class MemoryTtlStore<T> implements DomainCacheStore<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>();

  constructor(
    private readonly maxEntries = 50_000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string): Promise<T | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async set(key: string, value: T, ttlMs: number): Promise<void> {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    // Maps keep insertion order: the first key is the oldest.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expires: this.now() + ttlMs });
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }
}
