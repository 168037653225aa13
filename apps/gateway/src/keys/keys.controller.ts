import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import type { ApiKeyEntity, KeyScope, KeyType } from '@mailguard/db';
import { SCOPES } from '@mailguard/keys';
import { Scopes, type AuthedRequest } from '../auth/access';
import { KeysService } from './keys.service';

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

const SCOPE_MESSAGE = `scope must be one of ${SCOPES.join(', ')}`;

export class CreateKeyDto {
  @IsString({ message: 'name must be a string' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name!: string;

  @IsIn(SCOPES, { message: SCOPE_MESSAGE })
  scope!: KeyScope;

  @IsOptional()
  @IsIn(['secret', 'widget'], { message: 'type must be secret or widget' })
  type?: KeyType;
}

export class UpdateKeyDto {
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name?: string;

  @IsOptional()
  @IsIn(SCOPES, { message: SCOPE_MESSAGE })
  scope?: KeyScope;
}

@Controller('keys')
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @Get()
  @Scopes('full', 'read-only')
  async list(@Req() req: AuthedRequest): Promise<{ data: KeyRecord[] }> {
    return { data: (await this.keys.list(req.auth.account.id)).map(keyRecord) };
  }

  @Post()
  @Scopes('full')
  async create(@Body() body: CreateKeyDto, @Req() req: AuthedRequest): Promise<KeyRecord & { key: string }> {
    const { entity, key } = await this.keys.create(req.auth.account.id, body.name, body.scope, body.type ?? 'secret');
    return { ...keyRecord(entity), key };
  }

  @Patch(':id')
  @Scopes('full')
  async update(@Param('id') id: string, @Body() body: UpdateKeyDto, @Req() req: AuthedRequest): Promise<KeyRecord> {
    return keyRecord(await this.keys.update(req.auth.account.id, id, { name: body.name, scope: body.scope }));
  }

  @Delete(':id')
  @Scopes('full')
  @HttpCode(204)
  async revoke(@Param('id') id: string, @Req() req: AuthedRequest): Promise<void> {
    await this.keys.revoke(req.auth.account.id, id);
  }
}
