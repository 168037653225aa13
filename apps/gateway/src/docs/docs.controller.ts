import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/access';
import { openApiDocument } from './openapi';

/** `/docs` (Swagger UI, its assets served from swagger-ui-dist) and `/docs-json`, outside `/v1`. */
@Controller()
@Public()
export class DocsController {
  private readonly document = openApiDocument();

  @Get('docs-json')
  json(): Record<string, unknown> {
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
    return "window.ui = SwaggerUIBundle({ url: '/docs-json', dom_id: '#ui' });";
  }
}
