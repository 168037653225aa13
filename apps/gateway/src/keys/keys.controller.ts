import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ApiKeyEntity, Database, type KeyScope, type KeyType } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import { ApiKeys, generateKey, newId } from '@mailguard/keys';
import { Scopes, type AuthedRequest } from '../auth/access';
import { ApiErrors } from '../docs/api-docs';
import { CreateKeyDto, KeyListDto, KeyRecordDto, NewKeyDto, UpdateKeyDto } from './keys.dto';

export interface KeyRecord {
  id: string;
  name: string;
  prefix: string;
  scope: KeyScope;
  type: KeyType;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function keyRecord(key: ApiKeyEntity): KeyRecord {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scope: key.scope,
    type: key.type,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

@ApiTags('keys')
@Controller('keys')
export class KeysController {
  constructor(
    private readonly database: Database,
    private readonly keys: ApiKeys,
  ) {}

  private get repository() {
    return this.database.dataSource.getRepository(ApiKeyEntity);
  }

  /** Another account's key, a malformed id and a missing key all read as 404. */
  private async owned(req: AuthedRequest, id: string): Promise<ApiKeyEntity> {
    const key = /^key_[A-Za-z0-9]{24}$/.test(id) ? await this.repository.findOne({ where: { id, accountId: req.auth.account.id } }) : null;
    if (!key) throw new AppError('not_found', 'No such key');
    return key;
  }

  @Get()
  @Scopes('full', 'read-only')
  @ApiOperation({ summary: 'Keys of the account' })
  @ApiOkResponse({ type: KeyListDto })
  async list(@Req() req: AuthedRequest): Promise<{ data: KeyRecord[] }> {
    const keys = await this.repository.find({ where: { accountId: req.auth.account.id }, order: { createdAt: 'ASC' } });
    return { data: keys.map(keyRecord) };
  }

  @Post()
  @Scopes('full')
  @ApiOperation({ summary: 'Create a key (shown in full once)' })
  @ApiCreatedResponse({ type: NewKeyDto })
  @ApiErrors(400)
  async create(@Body() body: CreateKeyDto, @Req() req: AuthedRequest): Promise<KeyRecord & { key: string }> {
    const type = body.type ?? 'secret';
    const { key, prefix, hash } = generateKey(type);
    const entity = this.repository.create({ id: newId('key'), accountId: req.auth.account.id, name: body.name, type, scope: body.scope, prefix, keyHash: hash, lastUsedAt: null, revokedAt: null });
    await this.repository.insert(entity);
    const saved = await this.owned(req, entity.id);
    return { ...keyRecord(saved), key };
  }

  @Patch(':id')
  @Scopes('full')
  @ApiOperation({ summary: 'Rename a key or change its scope' })
  @ApiParam({ name: 'id', description: 'Key id (key_…)' })
  @ApiOkResponse({ type: KeyRecordDto })
  @ApiErrors(400, 404)
  async update(@Param('id') id: string, @Body() body: UpdateKeyDto, @Req() req: AuthedRequest): Promise<KeyRecord> {
    const key = await this.owned(req, id);
    if (body.name === undefined && body.scope === undefined) throw new AppError('bad_request', 'Nothing to change: give name and/or scope');
    await this.repository.update({ id: key.id }, { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.scope !== undefined ? { scope: body.scope } : {}) });
    await this.keys.changed(key.keyHash);
    return keyRecord(await this.owned(req, id));
  }

  @Delete(':id')
  @Scopes('full')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a key' })
  @ApiParam({ name: 'id', description: 'Key id (key_…)' })
  @ApiNoContentResponse({ description: 'Revoked: the key answers 401 from then on' })
  @ApiErrors(404)
  async revoke(@Param('id') id: string, @Req() req: AuthedRequest): Promise<void> {
    const key = await this.owned(req, id);
    if (!key.revokedAt) await this.repository.update({ id: key.id }, { revokedAt: new Date() });
    await this.keys.changed(key.keyHash);
  }
}
