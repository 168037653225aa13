import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import type { KeyScope, KeyType } from '@mailguard/db';
import { KEY_PREFIX, SCOPES } from '@mailguard/keys';
import { IsOmittable } from '../http/omittable';

const KEY_TYPES = Object.keys(KEY_PREFIX) as KeyType[];
const SCOPE_MESSAGE = `scope must be one of ${SCOPES.join(', ')}`;

/** #17 */
export class CreateKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'reporting' })
  @IsString({ message: 'name must be a string' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name!: string;

  @ApiProperty({ enum: SCOPES, description: 'What the key may call (docs/api.md#authentication)' })
  @IsIn(SCOPES, { message: SCOPE_MESSAGE })
  scope!: KeyScope;

  @ApiPropertyOptional({ enum: KEY_TYPES, default: 'secret', description: 'widget: for POST /widget/verify only' })
  @IsOmittable()
  @IsIn(KEY_TYPES, { message: `type must be ${KEY_TYPES.join(' or ')}` })
  type?: KeyType;
}

/** #18 */
export class UpdateKeyDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOmittable()
  @IsString({ message: 'name must be a string' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name?: string;

  @ApiPropertyOptional({ enum: SCOPES })
  @IsOmittable()
  @IsIn(SCOPES, { message: SCOPE_MESSAGE })
  scope?: KeyScope;
}

/** The shape of every key in an answer (the controller builds it, KeyRecordDto documents it). */
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

/** A key as every answer but its creation shows it: never the key itself. */
export class KeyRecordDto implements KeyRecord {
  @ApiProperty({ example: 'key_4fG7hJ2kL9mN0pQ1rS3tU5vW' }) id!: string;
  @ApiProperty({ example: 'Default key' }) name!: string;
  @ApiProperty({ example: 'mg_live_aB3d', description: 'The first 12 characters of the key' }) prefix!: string;
  @ApiProperty({ enum: SCOPES }) scope!: KeyScope;
  @ApiProperty({ enum: KEY_TYPES }) type!: KeyType;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) lastUsedAt!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) revokedAt!: string | null;
}

/** #17's answer: the record and the full key, shown this once. */
export class NewKeyDto extends KeyRecordDto {
  @ApiProperty({ example: 'mg_live_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY' }) key!: string;
}

/** #16 */
export class KeyListDto {
  @ApiProperty({ type: [KeyRecordDto] }) data!: KeyRecordDto[];
}
