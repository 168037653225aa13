import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension, ApiSecurity } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { KeyScope } from '@mailguard/db';
import type { Authenticated } from '@mailguard/keys';
import { API_KEY_SCHEME, ApiErrors, SCOPES_EXTENSION } from '../docs/api-docs';

export const ACCESS = Symbol('ACCESS');

/** Who may call a route: the scopes allowed (docs/api.md#endpoints), or `public` for routes without a key. */
export type AccessRule = { public: true } | { public: false; scopes: KeyScope[] };

/**
 * The scopes a secret key needs for this route (docs/api.md#authentication, docs/api.md#endpoints): the rule the guard reads and, from
 * the same call, the route's OpenAPI security, scopes and key errors, so the two cannot drift.
 */
export const Scopes = (...scopes: KeyScope[]) =>
  applyDecorators(
    SetMetadata(ACCESS, { public: false, scopes } satisfies AccessRule),
    ApiSecurity(API_KEY_SCHEME),
    ApiExtension(SCOPES_EXTENSION, scopes),
    ApiErrors(401, 403, 429),
  );

/** No key needed (sign-up, widget script, widget verify). */
export const Public = () =>
  applyDecorators(SetMetadata(ACCESS, { public: true } satisfies AccessRule), ApiExtension(SCOPES_EXTENSION, []));

export type AuthedRequest = Request & { auth: Authenticated };

/** Every response to a request with a valid secret key says the balance after the call (docs/api.md#credits). */
export function setCreditsRemaining(res: Response, balance: number): void {
  res.setHeader('X-Credits-Remaining', String(balance));
}

/**
 * The scopes a route allows, read from its declaration (the method's, else its controller's): the MCP
 * tools take their scopes from the REST route they mirror, so the two cannot drift apart.
 */
export function routeScopes<T extends object>(
  controller: abstract new (...args: never[]) => T,
  method: keyof T & string,
): KeyScope[] {
  const rule = (Reflect.getMetadata(ACCESS, controller.prototype[method] as object) ??
    Reflect.getMetadata(ACCESS, controller)) as AccessRule | undefined;
  if (!rule || rule.public) throw new Error(`${controller.name}.${method} declares no scopes`);
  return rule.scopes;
}
