import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AccountEntity, ApiKeyEntity, type KeyScope, type KeyType } from '@mailguard/db';

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

/**
 * API keys are stored only as SHA-256 hashes and found by hash. A key that is malformed, unknown
 * or revoked is simply not found.
 */
export class ApiKeys {
  constructor(private readonly dataSource: () => DataSource) {}

  async authenticate(presented: string): Promise<Authenticated | null> {
    if (!KEY_FORMAT.test(presented)) return null;
    const hash = hashKey(presented);
    // One round trip: the key and its account together.
    const row = await this.dataSource()
      .getRepository(ApiKeyEntity)
      .createQueryBuilder('key')
      .innerJoinAndMapOne('key.account', AccountEntity, 'account', 'account.id = key.accountId')
      .where('key.keyHash = :hash', { hash })
      .getOne();
    const key = row as (ApiKeyEntity & { account?: AccountEntity }) | null;
    // The index look-up already matched; compare once more in constant time, as is proper for secrets.
    if (!key?.account || key.revokedAt || !timingSafeEqual(Buffer.from(key.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    const { account } = key;
    // At most one write a minute per key: last-use is informational, not worth a write per request.
    if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() > 60_000) {
      void this.dataSource()
        .query("UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')", [key.id])
        .catch(() => undefined);
    }
    return { key, account };
  }
}
