import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension, ApiSecurity } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyScope } from '@mailguard/db';
import { actorOf, type Principal, type Right } from '@mailguard/accounts';
import { API_KEY_SCHEME, ApiErrors, SCOPES_EXTENSION } from '../docs/api-docs';

export const ACCESS = Symbol('ACCESS');
export const AREA = Symbol('AREA');

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

/**
 * The area of the account a route belongs to (keys, checks, billing, …): what a person signed in
 * needs their role to grant (libs/product/accounts/src/roles.ts) on top of the route's scopes, which
 * keep deciding for keys. A route without an area is closed to sessions.
 */
export const Area = (right: Right) => SetMetadata(AREA, right);

/** Whoever the request acts as: a key of the account or a person signed in to it (`auth.session`). */
export type AuthedRequest = FastifyRequest & { auth: Principal };

/** Every response to a request with a valid secret key says the balance after the call (docs/api.md#credits). */
export function setCreditsRemaining(res: FastifyReply, balance: number): void {
  res.header('X-Credits-Remaining', String(balance));
}

/**
 * The scopes a route allows, read from its declaration (the method's, else its controller's): the MCP
 * tools take their scopes from the REST route they mirror, so the two cannot drift apart.
 */
export function routeArea<T extends object>(
  controller: abstract new (...args: never[]) => T,
  method: keyof T & string,
): Right | null {
  return (
    ((Reflect.getMetadata(AREA, controller.prototype[method] as object) ?? Reflect.getMetadata(AREA, controller)) as
      Right | undefined) ?? null
  );
}

export function routeScopes<T extends object>(
  controller: abstract new (...args: never[]) => T,
  method: keyof T & string,
): KeyScope[] {
  const rule = (Reflect.getMetadata(ACCESS, controller.prototype[method] as object) ??
    Reflect.getMetadata(ACCESS, controller)) as AccessRule | undefined;
  if (!rule || rule.public) throw new Error(`${controller.name}.${method} declares no scopes`);
  return rule.scopes;
}

/** Who made a change and from where, as the audit log records it (docs/api.md#accounts-sessions-and-members). */
export interface ChangeOrigin {
  actor: string;
  clientIp: string | null;
  requestId: string | null;
}

/** The id Fastify gave the request (requestIdFor; echoed as X-Request-Id). */
export function requestIdOf(req: FastifyRequest): string | null {
  return req.id ?? null;
}

export function changeOrigin(req: AuthedRequest): ChangeOrigin {
  return { actor: actorOf(req.auth), clientIp: req.ip, requestId: requestIdOf(req) };
}
