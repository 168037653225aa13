import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadConfig } from '@mailguard/config';
import { ERROR_STATUS } from '@mailguard/errors';
import { SCOPES } from '@mailguard/keys';
import { createLogger } from '@mailguard/logger';
import { REASONS, SUB_STATUSES } from '@mailguard/verdict';
import { headingAnchors, section, tableRows, withoutCodeBlocks } from '../../../../test/support/markdown';
import { GatewayModule } from '../gateway.module';
import { buildApiDocument } from './document';
import { SCOPES_EXTENSION } from './api-docs';

/*
 * docs/api.md against the code: the endpoints its reference describes are the operations of the
 * OpenAPI document the gateway serves (method, path, scopes, success statuses), and every error
 * code the code can answer with is explained. The document is built from the gateway's own module
 * in Nest's preview mode: routes and decorators, no provider started, no database or Redis.
 */

const root = resolve(__dirname, '../../../..');
const API_DOC = join(root, 'docs', 'api.md');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const ENDPOINT = /^`(GET|POST|PUT|PATCH|DELETE) (\/v1\/[^`\s?]*)`$/;

interface Operation {
  scopes: string[];
  success: number[];
}

let document: OpenAPIObject;
let markdown: string;

beforeAll(async () => {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const app = await NestFactory.create(
    GatewayModule.forRoot({ config, logger: createLogger(config.log, 'gateway') }),
    new FastifyAdapter(),
    { preview: true, logger: false },
  );
  try {
    document = buildApiDocument(app);
  } finally {
    await app.close();
  }
  markdown = readFileSync(API_DOC, 'utf8');
});

/** `GET /v1/lists/:id` → what the document's operation says of it. */
function operations(): Map<string, Operation> {
  const [server] = document.servers ?? [];
  const found = new Map<string, Operation>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as (Record<string, unknown> & { responses: object }) | undefined;
      if (!operation) continue;
      const route = `${server.url}${path}`.replace(/\{(\w+)\}/g, ':$1');
      found.set(`${method.toUpperCase()} ${route}`, {
        scopes: [...((operation[SCOPES_EXTENSION] as string[] | undefined) ?? [])].sort(),
        success: Object.keys(operation.responses)
          .map(Number)
          .filter((status) => status >= 200 && status < 300)
          .sort(),
      });
    }
  }
  return found;
}

/** The endpoint table of `## Endpoints`: its `METHOD /v1/path` rows with their scopes and success statuses. */
function documentedTable(): Map<string, Operation> {
  const found = new Map<string, Operation>();
  for (const cells of tableRows(section(markdown, 'Endpoints'))) {
    const endpoint = cells.map((cell) => ENDPOINT.exec(cell)).find(Boolean);
    if (!endpoint) continue;
    const [scopes, success] = cells.slice(cells.findIndex((cell) => ENDPOINT.test(cell)) + 1);
    found.set(`${endpoint[1]} ${endpoint[2]}`, {
      scopes: SCOPES.filter((scope) => new RegExp(`(^|[^\\w-])${scope}([^\\w-]|$)`).test(scopes)).sort(),
      success: [...success.matchAll(/\b(2\d\d)\b/g)].map(([, status]) => Number(status)).sort(),
    });
  }
  return found;
}

/** The endpoints the reference describes: each subsection opens with its `METHOD /v1/path` on a line of its own. */
function documentedSections(): string[] {
  return section(markdown, 'Endpoints')
    .split('\n')
    .map((line) => ENDPOINT.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, method, path]) => `${method} ${path}`);
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx|js)$/.test(name) && !/\.spec\.ts$/.test(name) ? [path] : [];
  });
}

/** Every error code: the ones libs/foundation/errors maps to a status, and those written as literals in answers. */
function errorCodes(): string[] {
  const literal = ['apps', 'libs', 'bin']
    .flatMap((dir) => sources(join(root, dir)))
    .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\bcode: '([a-z][a-z_]*)'/g)].map(([, code]) => code));
  return [...new Set([...Object.keys(ERROR_STATUS), ...literal])].sort();
}

describe('docs/api.md', () => {
  it('lists every operation of the OpenAPI document in its endpoint table, with its scopes and success statuses', () => {
    const documented = documentedTable();
    const actual = operations();
    expect(actual.size).toBe(22);
    expect([...documented.keys()].sort()).toEqual([...actual.keys()].sort());
    for (const [endpoint, operation] of actual)
      expect([endpoint, documented.get(endpoint)]).toEqual([endpoint, operation]);
  });

  it('describes every operation in a subsection of its own, and nothing else', () => {
    const described = documentedSections();
    expect(described.sort()).toEqual([...operations().keys()].sort());
  });

  it('explains every error code, with the status it answers', () => {
    const rows = tableRows(section(markdown, 'Errors'));
    const statusOf = new Map(
      rows.flatMap((cells) => {
        const code = /^`([a-z_]+)`$/.exec(cells[0])?.[1];
        return code ? [[code, Number(cells[1])] as const] : [];
      }),
    );
    expect(errorCodes().filter((code) => !statusOf.has(code))).toEqual([]);
    for (const [code, status] of Object.entries(ERROR_STATUS))
      expect([code, statusOf.get(code)]).toEqual([code, status]);
  });

  it('names every reason, subStatus and scope', () => {
    const text = withoutCodeBlocks(markdown);
    const missing = [...REASONS, ...SUB_STATUSES, ...SCOPES].filter((value) => !text.includes(`\`${value}\``));
    expect(missing).toEqual([]);
  });
});

describe('links into the docs', () => {
  const files = [
    join(root, 'README.md'),
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(root, 'docs', name)),
  ];

  it.each(files.map((file) => [file.slice(root.length + 1), file]))(
    '%s links to files and headings that exist',
    (_, file) => {
      const text = withoutCodeBlocks(readFileSync(file, 'utf8'));
      const broken = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
        .map(([, target]) => target)
        .filter((target) => !/^[a-z]+:/i.test(target))
        .filter((target) => {
          const [path, anchor] = target.split('#');
          const linked = path === '' ? file : resolve(dirname(file), path);
          if (!existsSync(linked)) return true;
          return (
            anchor !== undefined && linked.endsWith('.md') && !headingAnchors(readFileSync(linked, 'utf8')).has(anchor)
          );
        });
      expect(broken).toEqual([]);
    },
  );

  it('resolves every docs/*.md#anchor the code cites', () => {
    const cited = ['apps', 'libs', 'bin']
      .flatMap((dir) => sources(join(root, dir)))
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\bdocs\/([\w-]+\.md)#([\w-]+)/g)]);
    const broken = cited
      .map(([reference, name, anchor]) => ({ reference, path: join(root, 'docs', name), anchor }))
      .filter(({ path, anchor }) => !existsSync(path) || !headingAnchors(readFileSync(path, 'utf8')).has(anchor))
      .map(({ reference }) => reference);
    expect(broken).toEqual([]);
  });
});
