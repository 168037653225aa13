import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AccountEntity, ApiKeyEntity, type KeyScope, type KeyType } from '@mailguard/db';
import type { KeyChanges } from './key-changes';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PREFIX: Record<KeyType, string> = { secret: 'mg_live_', widget: 'mg_widget_' };
const KEY_FORMAT = /^mg_(live|widget)_[A-Za-z0-9]{32}$/;
export const SCOPES: KeyScope[] = ['full', 'verify', 'lists', 'read-only'];

export function base62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

/** Opaque ids with a type prefix (`acc_…`, `key_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${base62(24)}`;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateKey(type: KeyType): { key: string; prefix: string; hash: string } {
  const key = `${KEY_PREFIX[type]}${base62(32)}`;
  return { key, prefix: key.slice(0, 12), hash: hashKey(key) };
}

export interface Authenticated {
  key: ApiKeyEntity;
  account: AccountEntity;
}

/** How long a gateway trusts a key it looked up; changes reach it sooner through `KeyChanges`. */
const CACHE_TTL_MS = 10_000;
const CACHE_MAX_KEYS = 10_000;
const LAST_USED_EVERY_MS = 60_000;
/** A change message naming a whole account rather than one key's hash (hashes are hex, never this). */
const ACCOUNT_CHANGE = 'account:';

/**
 * API keys are stored only as SHA-256 hashes and found by hash. A key that is malformed, unknown
 * or revoked is simply not found.
 *
 * Keys found are kept in process for a few seconds, so a check served from the result cache costs
 * no key query. A revoked or re-scoped key is dropped here before the change is answered and on
 * every other gateway through `KeyChanges`; the TTL only bounds a lost message. Accounts are
 * shared between their keys' entries and follow the balances this process sees move
 * (`noteBalance`), so `X-Credits-Remaining` stays current.
 */
export class ApiKeys {
  private readonly cache = new Map<string, { auth: Authenticated; expiresAt: number }>();
  private readonly accounts = new Map<string, AccountEntity>();
  /** Bumped by every drop: a look-up that raced a change must not cache what it read. */
  private generation = 0;

  constructor(
    private readonly dataSource: () => DataSource,
    private readonly changes: KeyChanges | null = null,
  ) {}

  /** Starts listening for changes made on other gateways. */
  async listen(): Promise<void> {
    await this.changes?.subscribe(
      (message) =>
        message.startsWith(ACCOUNT_CHANGE)
          ? this.dropAccount(message.slice(ACCOUNT_CHANGE.length))
          : this.drop(message),
      () => this.drop(null),
    );
  }

  close(): void {
    this.changes?.close();
  }

  async authenticate(presented: string): Promise<Authenticated | null> {
    if (!KEY_FORMAT.test(presented)) return null;
    const hash = hashKey(presented);
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > Date.now()) {
      await this.touch(cached.auth.key);
      return cached.auth;
    }
    const generation = this.generation;
    // One round trip: the key and its account together.
    const row = await this.dataSource()
      .getRepository(ApiKeyEntity)
      .createQueryBuilder('key')
      .innerJoinAndMapOne('key.account', AccountEntity, 'account', 'account.id = key.accountId')
      .where('key.keyHash = :hash', { hash })
      .getOne();
    const key = row as (ApiKeyEntity & { account?: AccountEntity }) | null;
    // The index look-up already matched; compare once more in constant time, as is proper for secrets.
    if (!key?.account || key.revokedAt || !timingSafeEqual(Buffer.from(key.keyHash, 'hex'), Buffer.from(hash, 'hex'))) {
      this.cache.delete(hash);
      return null;
    }
    let auth: Authenticated = { key, account: key.account };
    if (generation === this.generation) {
      if (this.cache.size >= CACHE_MAX_KEYS) this.drop(null);
      auth = { key, account: this.sharedAccount(key.account) };
      this.cache.set(hash, { auth, expiresAt: Date.now() + CACHE_TTL_MS });
    }
    await this.touch(key);
    return auth;
  }

  /** A key was revoked or changed: forgotten here, then on every other gateway. */
  async changed(hash: string): Promise<void> {
    this.drop(hash);
    await this.changes?.publish(hash);
  }

  /**
   * An account changed as a whole (suspended, unsuspended, erased, credited by an operator): every
   * key of it is forgotten here, then on every other gateway, so the next request reads the account
   * afresh wherever it lands.
   */
  async accountChanged(accountId: string): Promise<void> {
    this.dropAccount(accountId);
    await this.changes?.publish(`${ACCOUNT_CHANGE}${accountId}`);
  }

  /** The balance of an account after a movement this process made. */
  noteBalance(accountId: string, balance: number): void {
    const account = this.accounts.get(accountId);
    if (account) account.balance = balance;
  }

  private sharedAccount(fresh: AccountEntity): AccountEntity {
    const known = this.accounts.get(fresh.id);
    if (!known) {
      this.accounts.set(fresh.id, fresh);
      return fresh;
    }
    Object.assign(known, fresh);
    return known;
  }

  /** One key, or everything (null) when messages may have been missed or the cache is full. */
  private drop(hash: string | null): void {
    this.generation++;
    if (hash !== null) {
      this.cache.delete(hash);
      return;
    }
    this.cache.clear();
    this.accounts.clear();
  }

  private dropAccount(accountId: string): void {
    this.generation++;
    for (const [hash, entry] of this.cache) if (entry.auth.account.id === accountId) this.cache.delete(hash);
    this.accounts.delete(accountId);
  }

  /**
   * At most one write a minute per key: last use is informational, not worth a write per request.
   * Awaited, so that the key's record shows the use once the request using it has been answered.
   */
  private async touch(key: ApiKeyEntity): Promise<void> {
    if (key.lastUsedAt && Date.now() - key.lastUsedAt.getTime() <= LAST_USED_EVERY_MS) return;
    key.lastUsedAt = new Date();
    await this.dataSource()
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ lastUsedAt: () => 'now()' })
      // Conditional, so that gateways touching the same key together write it once a minute.
      .where("id = :id AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')", { id: key.id })
      .execute()
      .catch(() => undefined);
  }
}
