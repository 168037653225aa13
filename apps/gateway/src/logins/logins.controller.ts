import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CSRF_COOKIE, findSession, SESSION_COOKIE, SESSION_MAX_MS, type StartedSession } from '@mailguard/accounts';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { Database } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import { Inject } from '@nestjs/common';
import { Area, changeOrigin, Public, requestIdOf, Scopes, type AuthedRequest } from '../auth/access';
import { assertCsrf } from '../auth/api-key.guard';
import { cookieHeader, readCookie, setCookies } from '../auth/cookies';
import { parsePage } from '../http/paging';
import { EmailDto, InviteDto, LoginDto, PasswordChangeDto, TokenPasswordDto } from './logins.dto';
import {
  LoginsService,
  type AuditView,
  type LoginOrigin,
  type MemberView,
  type SessionView,
  type SignedInView,
} from './logins.service';

/**
 * People's sign-in (docs/api.md#accounts-sessions-and-members), at `/auth` beside the API: sign-in and
 * sign-out, sessions, password change and reset, members and the audit log. The routes that need
 * someone are authenticated by the same guard as the API: a session cookie (CSRF token for anything
 * but GET), or a `full` key of the account.
 */
@ApiExcludeController()
@Controller('auth')
export class LoginsController {
  constructor(
    private readonly logins: LoginsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: Database,
  ) {}

  private origin(req: FastifyRequest): LoginOrigin {
    return { clientIp: req.ip, device: req.headers['user-agent'] ?? null, requestId: requestIdOf(req) };
  }

  /** The session cookie (HttpOnly) and its CSRF token (readable by the page's script). */
  private setSession(res: FastifyReply, session: StartedSession): void {
    const secure = this.config.logins.cookieSecure;
    const maxAge = Math.floor(SESSION_MAX_MS / 1000);
    setCookies(res, [
      cookieHeader(SESSION_COOKIE, session.token, { httpOnly: true, secure, maxAge }),
      cookieHeader(CSRF_COOKIE, session.csrf, { httpOnly: false, secure, maxAge }),
    ]);
  }

  private clearSession(res: FastifyReply): void {
    const secure = this.config.logins.cookieSecure;
    setCookies(res, [
      cookieHeader(SESSION_COOKIE, '', { httpOnly: true, secure, maxAge: 0 }),
      cookieHeader(CSRF_COOKIE, '', { httpOnly: false, secure, maxAge: 0 }),
    ]);
  }

  @Post('login')
  @Public()
  @HttpCode(200)
  async login(
    @Body() body: LoginDto,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<SignedInView> {
    const { session, ...view } = await this.logins.login(body.email, body.password, this.origin(req));
    this.setSession(res, session);
    return view;
  }

  /** Always 204 and the cookies cleared; a live session (with its CSRF token) is ended. */
  @Post('logout')
  @Public()
  @HttpCode(204)
  async logout(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<void> {
    const token = readCookie(req, SESSION_COOKIE);
    const auth = token ? await findSession(this.database.dataSource, token) : null;
    if (auth) {
      assertCsrf(req, auth.session.csrf);
      await this.logins.logout(auth, {
        actor: auth.session.memberId ? `member:${auth.session.memberId}` : `account:${auth.account.id}`,
        clientIp: req.ip,
        requestId: requestIdOf(req),
      });
    }
    this.clearSession(res);
  }

  @Get('sessions')
  @Scopes('full')
  @Area('self')
  async sessions(@Req() req: AuthedRequest): Promise<{ data: SessionView[] }> {
    return { data: await this.logins.sessions(req.auth) };
  }

  @Delete('sessions/:id')
  @Scopes('full')
  @Area('self')
  @HttpCode(204)
  async endSession(@Param('id') id: string, @Req() req: AuthedRequest): Promise<void> {
    await this.logins.endOne(req.auth, id, changeOrigin(req));
  }

  @Post('password')
  @Scopes('full')
  @Area('self')
  @HttpCode(204)
  async changePassword(@Body() body: PasswordChangeDto, @Req() req: AuthedRequest): Promise<void> {
    if (!req.auth.session) throw new AppError('forbidden', 'Only a person signed in changes their password');
    await this.logins.changePassword(req.auth, body.currentPassword, body.password, changeOrigin(req));
  }

  @Post('password-reset')
  @Public()
  @HttpCode(202)
  async requestReset(@Body() body: EmailDto, @Req() req: FastifyRequest): Promise<{ accepted: true }> {
    await this.logins.requestReset(body.email, this.origin(req));
    return { accepted: true };
  }

  @Post('password-reset/confirm')
  @Public()
  @HttpCode(204)
  async confirmReset(
    @Body() body: TokenPasswordDto,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<void> {
    await this.logins.confirmReset(body.token, body.password, this.origin(req));
    this.clearSession(res);
  }

  @Post('members')
  @Scopes('full')
  @Area('members')
  @HttpCode(201)
  invite(@Body() body: InviteDto, @Req() req: AuthedRequest): Promise<MemberView> {
    return this.logins.invite(req.auth, body.email, body.role, changeOrigin(req));
  }

  @Get('members')
  @Scopes('full')
  @Area('members')
  async members(@Req() req: AuthedRequest): Promise<{ data: MemberView[] }> {
    return { data: await this.logins.members(req.auth.account.id) };
  }

  @Delete('members/:id')
  @Scopes('full')
  @Area('members')
  @HttpCode(204)
  async removeMember(@Param('id') id: string, @Req() req: AuthedRequest): Promise<void> {
    await this.logins.removeMember(req.auth, id, changeOrigin(req));
  }

  @Post('invitations/accept')
  @Public()
  @HttpCode(200)
  async accept(
    @Body() body: TokenPasswordDto,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<SignedInView> {
    const { session, ...view } = await this.logins.acceptInvitation(body.token, body.password, this.origin(req));
    this.setSession(res, session);
    return view;
  }

  @Get('audit')
  @Scopes('full')
  @Area('members')
  audit(
    @Req() req: AuthedRequest,
    @Query('page') page?: string,
    @Query('limit') limit?: string,
  ): Promise<{ data: AuditView[]; page: number; limit: number; total: number }> {
    const paging = parsePage(page, limit);
    return this.logins.audit(req.auth.account.id, paging.page, paging.limit);
  }
}
