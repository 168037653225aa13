import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController, type OpenAPIObject } from '@nestjs/swagger';
import { AppError } from '@mailguard/errors';
import { Public } from '../auth/access';

/** `/docs` (Swagger UI, its assets served from swagger-ui-dist) and `/docs-json`, outside `/v1`. */
@Controller()
@Public()
@ApiExcludeController()
export class DocsController {
  private document: OpenAPIObject | null = null;

  /** The document is made from the application's routes, so it is handed over once they are all known. */
  publish(document: OpenAPIObject): void {
    this.document = document;
  }

  @Get('docs-json')
  json(): OpenAPIObject {
    if (!this.document) throw new AppError('unavailable', 'The API description is not built yet');
    return this.document;
  }

  @Get('docs')
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>MailGuard API</title><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs-init.js"></script>
</body></html>`;
  }

  @Get('docs/assets/docs-init.js')
  @Header('Content-Type', 'application/javascript; charset=utf-8')
  init(): string {
    // showExtensions: each operation's x-scopes (the key scopes allowed to call it) is shown.
    return "window.ui = SwaggerUIBundle({ url: '/docs-json', dom_id: '#ui', showExtensions: true });";
  }
}
