import { Injectable } from '@nestjs/common';
import { recordAudit } from '@mailguard/accounts';
import { ApiKeyEntity, Database, type KeyScope, type KeyType } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import { ApiKeys, generateKey, newId } from '@mailguard/keys';
import type { ChangeOrigin } from '../auth/access';

/**
 * An account's API keys (#15–#18); every change reaches every gateway's key cache before it is answered,
 * and is written to the account's audit log in the transaction that makes it.
 */
@Injectable()
export class KeysService {
  constructor(
    private readonly database: Database,
    private readonly keys: ApiKeys,
  ) {}

  private get repository() {
    return this.database.dataSource.getRepository(ApiKeyEntity);
  }

  /** Another account's key, a malformed id and a missing key all read as 404. */
  async owned(accountId: string, id: string): Promise<ApiKeyEntity> {
    const key = /^key_[A-Za-z0-9]{24}$/.test(id) ? await this.repository.findOne({ where: { id, accountId } }) : null;
    if (!key) throw new AppError('not_found', 'No such key');
    return key;
  }

  list(accountId: string): Promise<ApiKeyEntity[]> {
    return this.repository.find({ where: { accountId }, order: { createdAt: 'ASC' } });
  }

  /** The new key's record and its secret, shown this once. */
  async create(
    accountId: string,
    name: string,
    scope: KeyScope,
    type: KeyType,
    origin: ChangeOrigin,
  ): Promise<{ entity: ApiKeyEntity; key: string }> {
    const { key, prefix, hash } = generateKey(type);
    const entity = this.repository.create({
      id: newId('key'),
      accountId,
      name,
      type,
      scope,
      prefix,
      keyHash: hash,
      lastUsedAt: null,
      revokedAt: null,
    });
    await this.database.dataSource.transaction(async (manager) => {
      await manager.insert(ApiKeyEntity, entity);
      await recordAudit(manager, { accountId, ...origin, action: 'key.create', target: entity.id, detail: scope });
    });
    return { entity: await this.owned(accountId, entity.id), key };
  }

  async update(
    accountId: string,
    id: string,
    change: { name?: string; scope?: KeyScope },
    origin: ChangeOrigin,
  ): Promise<ApiKeyEntity> {
    const key = await this.owned(accountId, id);
    if (change.name === undefined && change.scope === undefined)
      throw new AppError('bad_request', 'Nothing to change: give name and/or scope');
    await this.database.dataSource.transaction(async (manager) => {
      await manager.update(
        ApiKeyEntity,
        { id: key.id },
        {
          ...(change.name !== undefined ? { name: change.name } : {}),
          ...(change.scope !== undefined ? { scope: change.scope } : {}),
        },
      );
      await recordAudit(manager, {
        accountId,
        ...origin,
        action: change.scope !== undefined ? 'key.rescope' : 'key.rename',
        target: key.id,
        detail: change.scope ?? null,
      });
    });
    await this.keys.changed(key.keyHash);
    return this.owned(accountId, id);
  }

  async revoke(accountId: string, id: string, origin: ChangeOrigin): Promise<void> {
    const key = await this.owned(accountId, id);
    if (!key.revokedAt)
      await this.database.dataSource.transaction(async (manager) => {
        await manager.update(ApiKeyEntity, { id: key.id }, { revokedAt: new Date() });
        await recordAudit(manager, { accountId, ...origin, action: 'key.revoke', target: key.id });
      });
    await this.keys.changed(key.keyHash);
  }
}
