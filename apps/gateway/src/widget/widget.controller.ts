import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Body, Controller, Get, HttpCode, Ip, Options, Post, Put, Req, Res } from '@nestjs/common';
import {
  ApiExcludeEndpoint,
  ApiHeader,
  ApiNotModifiedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VerificationResult } from '@mailguard/engine';
import { parseDefaults, parseOrigins, WidgetSettingsStore, type WidgetSettings } from '@mailguard/widget';
import { Area, Public, Scopes, type AuthedRequest } from '../auth/access';
import { ApiErrors } from '../docs/api-docs';
import { headerOf } from '../http/request-headers';
import { VerificationResultDto } from '../validation/result.dto';
import { WIDGET_VERIFY_HEADERS, WidgetSettingsDto, WidgetSettingsViewDto, WidgetVerifyDto } from './widget.dto';
import { WidgetService } from './widget.service';

/** The bundle and demo page `npm run build` makes from apps/widget (bin/build-widget.js), beside the compiled apps. */
const WIDGET_DIST = join(__dirname, '../../../../widget');
const SCRIPT_PATH = join(WIDGET_DIST, 'widget.js');
/** Served at /widget/demo/: a sign-up form with the widget, for people to try. */
export const WIDGET_DEMO_DIR = join(WIDGET_DIST, 'demo');

interface Script {
  body: Buffer;
  etag: string;
}

function loadScript(): Script {
  const body = readFileSync(SCRIPT_PATH);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

@ApiTags('widget')
@Controller('widget')
export class WidgetController {
  /** Read at boot: a missing bundle fails the start, not a visitor's page load. */
  private readonly script = loadScript();

  constructor(
    private readonly widget: WidgetService,
    private readonly settings: WidgetSettingsStore,
  ) {}

  /** #11: the SDK, cached by browsers and CDNs and revalidated by its ETag. */
  @Get('widget.js')
  @Public()
  @ApiOperation({ summary: 'The Guard form widget (global `Guard`), revalidated by its ETag' })
  @ApiOkResponse({ description: 'The SDK', content: { 'application/javascript': { schema: { type: 'string' } } } })
  @ApiNotModifiedResponse({ description: 'If-None-Match holds the current ETag' })
  sdk(@Req() req: FastifyRequest, @Res() res: FastifyReply): void {
    const { body, etag } = this.script;
    res.header('Cache-Control', 'public, max-age=300, stale-while-revalidate=86400');
    res.header('ETag', etag);
    if (
      headerOf(req, 'if-none-match')
        ?.split(/\s*,\s*/)
        .includes(etag)
    ) {
      void res.code(304).send();
      return;
    }
    void res.type('application/javascript; charset=utf-8').send(body);
  }

  /** CORS preflight of #12; the origin is checked against the key's account on the request itself. */
  @Options('verify')
  @Public()
  @ApiExcludeEndpoint()
  @HttpCode(204)
  preflight(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): void {
    res.header('Access-Control-Allow-Origin', headerOf(req, 'origin') ?? '*');
    res.header('Access-Control-Allow-Methods', 'POST');
    res.header('Access-Control-Allow-Headers', 'Content-Type, X-API-Key');
    res.header('Access-Control-Max-Age', '600');
    res.header('Vary', 'Origin');
  }

  /** #12 */
  @Post('verify')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Verify from the widget',
    description: 'Without a key: the public tier (4 checks per device and day). With a widget key: a paid check.',
  })
  @ApiHeader({
    name: 'X-API-Key',
    required: false,
    description: "A widget key (mg_widget_…), from its account's origins",
  })
  @ApiOkResponse({ type: VerificationResultDto, headers: WIDGET_VERIFY_HEADERS })
  @ApiErrors(400, 401, 402, 403, 429)
  verify(
    @Body() body: WidgetVerifyDto,
    @Req() req: FastifyRequest,
    @Ip() ip: string,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<VerificationResult> {
    res.header('Vary', 'Origin');
    return this.widget.verify(
      {
        email: body.email,
        deviceId: body.deviceId,
        presentedKey: headerOf(req, 'x-api-key'),
        origin: headerOf(req, 'origin'),
        ip,
      },
      res,
    );
  }

  /**
   * The dashboard's live preview (outside the 22, docs/dashboard.md): the account's own credential, free, never the
   * public tier's count; the REST limit per key applies, and a daily cap per account keeps it a preview.
   */
  @Post('preview')
  @Scopes('full', 'read-only')
  @Area('widget')
  @HttpCode(200)
  @ApiExcludeEndpoint()
  preview(@Body() body: WidgetVerifyDto, @Req() req: AuthedRequest): Promise<VerificationResult> {
    return this.widget.preview(req.auth.account.id, body.email);
  }

  /** #13 */
  @Get('settings')
  @Scopes('full', 'read-only')
  @Area('widget')
  @ApiOperation({ summary: 'Widget settings' })
  @ApiOkResponse({ type: WidgetSettingsViewDto })
  read(@Req() req: AuthedRequest): Promise<WidgetSettings> {
    return this.settings.get(req.auth.account.id);
  }

  /** #14: the fields given replace the stored ones; `defaults` left out of the body stay, fields left out of `defaults` take the built-ins. */
  @Put('settings')
  @Scopes('full')
  @Area('widget')
  @ApiOperation({ summary: 'Change the widget settings' })
  @ApiOkResponse({ type: WidgetSettingsViewDto })
  @ApiErrors(400)
  write(@Req() req: AuthedRequest, @Body() body: WidgetSettingsDto): Promise<WidgetSettings> {
    return this.settings.put(req.auth.account.id, {
      allowedOrigins: body.allowedOrigins === undefined ? undefined : parseOrigins(body.allowedOrigins),
      defaults: body.defaults === undefined ? undefined : parseDefaults(body.defaults),
    });
  }
}
