import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiQuery, ApiResponse, DECORATORS, getSchemaPath, type ApiQueryOptions } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '@mailguard/errors';

/** The security scheme of the OpenAPI document: the key in `X-API-Key` (docs/api.md#authentication). */
export const API_KEY_SCHEME = 'apiKey';

/** The operation extension that lists the scopes allowed to call it, written by `@Scopes`/`@Public`. */
export const SCOPES_EXTENSION = 'x-scopes';

/**
 * The members of a string union as a value, checked by the compiler both ways: a member missing or
 * one too many fails the build, so an enum in the document cannot drift from the type it describes.
 */
export function unionMembers<T extends string>() {
  return <const A extends readonly T[]>(...values: A & ([T] extends [A[number]] ? unknown : never)): A => values;
}

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** Every error body (docs/api.md#errors). */
export class ErrorBodyDto {
  @ApiProperty({ description: 'A human readable sentence', example: 'Invalid or revoked API key' })
  error!: string;

  @ApiProperty({ description: 'The machine code (one per status, more specific ones may be added)', enum: ERROR_CODES })
  code!: ErrorCode;
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed JSON, missing or invalid parameters',
  401: 'API key missing, unknown or revoked',
  402: 'Credits insufficient; nothing was charged',
  403: 'Key valid but outside its scope (or a widget key outside the widget or its origins)',
  404: 'No such resource (or one of another account)',
  408: 'The request body stalled past its timeout (an upload silent for UPLOAD_IDLE_TIMEOUT_MS)',
  409: 'An account with this email exists',
  410: 'The list is kept but its rows were erased after the retention period (RETENTION_DAYS)',
  413: 'Upload too large',
  429: 'Rate limit (or widget public tier) exhausted; see Retry-After',
  503: 'Postgres or Redis unavailable, or the gateway staging too many uploads; retry shortly',
};

/** Error responses `{ error, code }`, each status with the codes libs/foundation/errors maps to it. */
export function ApiErrors(...statuses: Array<keyof typeof ERROR_TEXT>): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) => {
      const codes = ERROR_CODES.filter((code) => ERROR_STATUS[code] === status);
      if (codes.length === 0) throw new Error(`No error code answers ${status}`);
      return ApiResponse({
        status,
        description: ERROR_TEXT[status],
        schema: {
          allOf: [
            { $ref: getSchemaPath(ErrorBodyDto) },
            { type: 'object', properties: { code: { type: 'string', enum: codes } } },
          ],
        },
      });
    }),
  );
}

/**
 * The query parameters a DTO class describes, one `@ApiQuery` per documented property: the routes
 * read each parameter by name (`@Query('page')`), and these complete what Nest reflects of them.
 */
export function ApiQueryParams(dto: abstract new () => object): MethodDecorator {
  const names = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, dto.prototype) ?? []) as string[];
  return applyDecorators(
    ...names.map((key) => {
      const name = key.replace(/^:/, '');
      const options = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, dto.prototype, name) as ApiQueryOptions;
      return ApiQuery({ ...options, name, required: options.required !== false } as ApiQueryOptions);
    }),
  );
}
