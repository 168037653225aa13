import { ApiProperty, ApiPropertyOptional, PartialType, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { MAX_ADDRESS_INPUT } from '@mailguard/errors';
import {
  LANGS,
  MESSAGE_KINDS,
  type Lang,
  type MessageKind,
  type WidgetDefaults,
  type WidgetSettings,
} from '@mailguard/widget';
import { IsOmittable } from '../http/omittable';

/** #12 */
export class WidgetVerifyDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_ADDRESS_INPUT, example: 'jane@example.com' })
  @IsString({ message: 'email must be a string' })
  @MinLength(1, { message: 'email must not be empty' })
  @MaxLength(MAX_ADDRESS_INPUT, { message: `email must be at most ${MAX_ADDRESS_INPUT} characters` })
  email!: string;

  @ApiPropertyOptional({
    pattern: '^[A-Za-z0-9_-]{8,128}$',
    description: "The widget's device id (kept in localStorage)",
  })
  @IsOmittable()
  @Matches(/^[A-Za-z0-9_-]{8,128}$/, { message: 'deviceId must be 8 to 128 letters, digits, "-" or "_"' })
  deviceId?: string;
}

const MESSAGES_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  properties: Object.fromEntries(MESSAGE_KINDS.map((kind) => [kind, { type: 'string' as const }])),
  description: 'Texts replacing the built-in messages, by kind',
};

export class WidgetDefaultsDto implements WidgetDefaults {
  @ApiProperty({ description: 'Disposable addresses are blocked' }) blockDisposable!: boolean;
  @ApiProperty({ description: 'Free-mail addresses are blocked' }) blockFree!: boolean;
  @ApiProperty({ enum: LANGS }) lang!: Lang;
  @ApiProperty(MESSAGES_SCHEMA) messages!: Partial<Record<MessageKind, string>>;
}

/** #13, #14's answer */
export class WidgetSettingsViewDto implements WidgetSettings {
  @ApiProperty({
    type: [String],
    example: ['https://shop.example.com'],
    description: 'Origins widget keys work from; empty: any',
  })
  allowedOrigins!: string[];

  @ApiProperty({ type: WidgetDefaultsDto })
  defaults!: WidgetDefaultsDto;
}

class WidgetDefaultsInputDto extends PartialType(WidgetDefaultsDto) {}

/**
 * #14: the fields given replace the stored ones; `defaults` left out stay, fields left out of
 * `defaults` take the built-ins. Read by `parseOrigins` and `parseDefaults` (400 with the field).
 */
export class WidgetSettingsDto {
  @ApiPropertyOptional({ type: [String], example: ['https://shop.example.com'] })
  @IsOmittable()
  allowedOrigins?: unknown;

  @ApiPropertyOptional({ type: WidgetDefaultsInputDto })
  @IsOmittable()
  defaults?: unknown;
}

/** What #12 adds to a check made with a widget key. */
export const WIDGET_VERIFY_HEADERS = {
  'X-Guard-Token': { description: 'The signed verdict (widget key only)', schema: { type: 'string' as const } },
  'X-Guard-Settings': {
    description: "The account's widget defaults, base64url JSON (widget key only)",
    schema: { type: 'string' as const },
  },
};
