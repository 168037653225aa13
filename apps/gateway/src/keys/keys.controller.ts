import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { ApiKeyEntity } from '@mailguard/db';
import { Area, changeOrigin, Scopes, type AuthedRequest } from '../auth/access';
import { ApiErrors } from '../docs/api-docs';
import { CreateKeyDto, KeyListDto, KeyRecordDto, NewKeyDto, UpdateKeyDto, type KeyRecord } from './keys.dto';
import { KeysService } from './keys.service';

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
@Area('keys')
@Controller('keys')
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @Get()
  @Scopes('full', 'read-only')
  @ApiOperation({ summary: 'Keys of the account' })
  @ApiOkResponse({ type: KeyListDto })
  async list(@Req() req: AuthedRequest): Promise<{ data: KeyRecord[] }> {
    return { data: (await this.keys.list(req.auth.account.id)).map(keyRecord) };
  }

  @Post()
  @Scopes('full')
  @ApiOperation({ summary: 'Create a key (shown in full once)' })
  @ApiCreatedResponse({ type: NewKeyDto })
  @ApiErrors(400)
  async create(@Body() body: CreateKeyDto, @Req() req: AuthedRequest): Promise<KeyRecord & { key: string }> {
    const { entity, key } = await this.keys.create(
      req.auth.account.id,
      body.name,
      body.scope,
      body.type ?? 'secret',
      changeOrigin(req),
    );
    return { ...keyRecord(entity), key };
  }

  @Patch(':id')
  @Scopes('full')
  @ApiOperation({ summary: 'Rename a key or change its scope' })
  @ApiParam({ name: 'id', description: 'Key id (key_…)' })
  @ApiOkResponse({ type: KeyRecordDto })
  @ApiErrors(400, 404)
  async update(@Param('id') id: string, @Body() body: UpdateKeyDto, @Req() req: AuthedRequest): Promise<KeyRecord> {
    return keyRecord(
      await this.keys.update(req.auth.account.id, id, { name: body.name, scope: body.scope }, changeOrigin(req)),
    );
  }

  @Delete(':id')
  @Scopes('full')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a key' })
  @ApiParam({ name: 'id', description: 'Key id (key_…)' })
  @ApiNoContentResponse({ description: 'Revoked: the key answers 401 from then on' })
  @ApiErrors(404)
  async revoke(@Param('id') id: string, @Req() req: AuthedRequest): Promise<void> {
    await this.keys.revoke(req.auth.account.id, id, changeOrigin(req));
  }
}
