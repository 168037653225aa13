import { join } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject, OperationObject } from '@nestjs/swagger';
import { loadConfig } from '@mailguard/config';
import { createLogger } from '@mailguard/logger';
import { SUB_STATUSES } from '@mailguard/verdict';
import { DIST } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/services';

/*
 * The OpenAPI document against the application itself: the built gateway runs in this process, so
 * the routes its router holds and the access rules its guard reads are compared with the document
 * it serves at /docs-json. A route added without documentation, a documented route that is gone,
 * or scopes that say something else than the guard enforces fail here.
 */

jest.setTimeout(60_000);

interface Gateway {
  app: NestFastifyApplication;
  url: string;
  close(): Promise<void>;
}
type AccessRule = { public: true } | { public: false; scopes: string[] };
interface Route {
  method: string;
  path: string;
}

/** The surfaces outside the 22 endpoints (docs/api.md#other-http-surfaces) and the widget's CORS preflight: not in the document. */
const UNDOCUMENTED = [
  'GET /',
  'GET /favicon.ico',
  'GET /health/live',
  'GET /health/ready',
  'GET /docs-json',
  'GET /docs',
  'GET /docs/assets/docs-init.js',
  'POST /mcp',
  'GET /mcp',
  'DELETE /mcp',
  'OPTIONS /v1/widget/verify',
  'POST /v1/widget/preview',
  // Sign-in, sessions and members (docs/api.md#accounts-sessions-and-members): outside the 22.
  'POST /auth/login',
  'POST /auth/logout',
  'GET /auth/sessions',
  'DELETE /auth/sessions/:id',
  'POST /auth/password',
  'POST /auth/password-reset',
  'POST /auth/password-reset/confirm',
  'POST /auth/members',
  'GET /auth/members',
  'DELETE /auth/members/:id',
  'POST /auth/invitations/accept',
  'GET /auth/audit',
];

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'] as const;

let database: TestDatabase;
let gateway: Gateway;
let document: OpenAPIObject;
let ACCESS: symbol;

beforeAll(async () => {
  database = await createTestDatabase();
  const config = loadConfig({ DATABASE_URL: database.url, PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'warn' });
  // The build, as every e2e test runs it (the widget bundle it serves exists only there).
  const built = (await import(join(DIST, 'apps/gateway/src/gateway.js'))) as {
    startGateway(config: unknown, logger: unknown): Promise<Gateway>;
  };
  ({ ACCESS } = (await import(join(DIST, 'apps/gateway/src/auth/access.js'))) as { ACCESS: symbol });
  gateway = await built.startGateway(config, createLogger(config.log, 'gateway'));
  const response = await fetch(`${gateway.url}/docs-json`);
  expect(response.status).toBe(200);
  document = (await response.json()) as OpenAPIObject;
});

afterAll(async () => {
  await gateway?.close();
  await database?.drop();
});

/**
 * Every route the gateway's Fastify router holds, as `METHOD /path` with `:parameters`, read from
 * its printed tree (each line a path piece under its parent's); not the HEAD routes Fastify adds to
 * every GET, nor the static files' wildcards (the dashboard, the widget demo, Swagger UI's assets).
 */
function registeredRoutes(): string[] {
  const tree = gateway.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
  const paths: string[] = [];
  return tree.split('\n').flatMap((line) => {
    const piece = /^([│ ]*)[└├]── (\S+)(?: \(([A-Z, ]+)\))?$/u.exec(line);
    if (!piece) return [];
    const depth = piece[1].length / 4;
    const path = (paths[depth - 1] ?? '') + piece[2];
    paths[depth] = path;
    const methods = piece[3]?.split(', ').filter((method) => method !== 'HEAD') ?? [];
    return path.includes('*') ? [] : methods.map((method) => `${method} ${path}`);
  });
}

/** Every operation of the document, keyed as the router writes routes. */
function documentedOperations(): Array<Route & { operation: OperationObject }> {
  const base = document.servers?.[0]?.url ?? '';
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      return operation
        ? [{ method: method.toUpperCase(), path: `${base}${path.replace(/\{(\w+)\}/g, ':$1')}`, operation }]
        : [];
    }),
  );
}

/** The access rule of every route handler, read as the guard reads it (the method's, else its controller's). */
function accessRules(): Map<string, AccessRule | undefined> {
  const discovery = new DiscoveryService(gateway.app.get(ModulesContainer));
  const reflector = new Reflector();
  const scanner = new MetadataScanner();
  const rules = new Map<string, AccessRule | undefined>();
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
    if (!controller) continue;
    const prototype = controller.prototype as Record<string, (...args: never[]) => unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      if ((Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined) === undefined) continue;
      rules.set(
        `${controller.name}_${name}`,
        reflector.getAllAndOverride<AccessRule | undefined>(ACCESS, [handler, controller]),
      );
    }
  }
  return rules;
}

describe('the OpenAPI document', () => {
  it('documents every route the gateway serves, and no route it does not', () => {
    const registered = registeredRoutes();
    const documented = documentedOperations().map(({ method, path }) => `${method} ${path}`);
    expect(new Set(registered).size).toBe(registered.length);
    expect(documented).toHaveLength(22);
    expect([...documented].sort()).toEqual(registered.filter((route) => !UNDOCUMENTED.includes(route)).sort());
    expect(registered).toEqual(expect.arrayContaining(UNDOCUMENTED));
  });

  it('gives each operation the scopes the guard enforces on its route', () => {
    const rules = accessRules();
    const operations = documentedOperations();
    for (const { method, path, operation } of operations) {
      const rule = rules.get(operation.operationId ?? '');
      expect({ route: `${method} ${path}`, rule }).toEqual({ route: `${method} ${path}`, rule: expect.anything() });
      const documented = {
        scopes: (operation as unknown as Record<string, unknown>)['x-scopes'],
        security: operation.security ?? [],
      };
      if (rule?.public) expect(documented).toEqual({ scopes: [], security: [] });
      else expect(documented).toEqual({ scopes: rule?.scopes, security: [{ apiKey: [] }] });
    }
    // Every route with a key declares the errors of the key: 401, 403 and 429 with their codes.
    for (const { operation } of operations.filter(({ operation }) => (operation.security ?? []).length > 0)) {
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
    }
  });

  it('describes the result object with every check and the subStatus vocabulary (docs/api.md#the-result-object)', () => {
    const schemas = document.components?.schemas ?? {};
    const result = schemas.VerificationResultDto as { properties: Record<string, { enum?: unknown[] }> };
    expect(result.properties.subStatus.enum).toEqual([...SUB_STATUSES]);
    const checks = schemas.ChecksDto as { properties: Record<string, unknown> };
    expect(Object.keys(checks.properties).sort()).toEqual(
      ['authentication', 'catchAll', 'disposable', 'domain', 'domainAge', 'mx', 'role', 'smtp', 'syntax'].sort(),
    );
    expect(document.components?.securitySchemes?.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });
});
