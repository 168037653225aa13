import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { API_KEY_SCHEME, ErrorBodyDto } from './api-docs';
import { DocsController } from './docs.controller';

/** Where the 22 endpoints live (docs/api.md#endpoints); the document's paths are relative to it. */
export const API_BASE_PATH = '/v1';

/**
 * The OpenAPI 3 document of the public API, made from the controllers' own decorators and DTO
 * classes (routes, bodies, answers, the scopes the guard enforces). The surfaces outside the 22
 * endpoints (health, metrics, docs, MCP) exclude themselves.
 */
export function buildApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('MailGuard API')
    .setVersion('1.0.0')
    .setDescription('Email verification: single and batch checks, lists, finder, widget, keys and credits.')
    .addServer(API_BASE_PATH)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, API_KEY_SCHEME)
    .build();
  return SwaggerModule.createDocument(app, config, { ignoreGlobalPrefix: true, extraModels: [ErrorBodyDto] });
}

/** Builds the document once the routes are declared and has `/docs-json` serve it. */
export function publishApiDocument(app: INestApplication): void {
  app.get(DocsController).publish(buildApiDocument(app));
}
