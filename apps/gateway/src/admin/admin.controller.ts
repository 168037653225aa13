import {
  applyDecorators,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  UseGuards,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { AuditEntryView, AuditOrigin, LedgerRow, OperatorAccountView, Page } from '@mailguard/accounts';
import { assertPlainText } from '@mailguard/errors';
import { requestContext } from '@mailguard/logger';
import { Public } from '../auth/access';
import { parsePage } from '../http/paging';
import { AdminGuard } from './admin.guard';
import { CreditsDto, OptionalReasonDto, SuspendDto } from './admin.dto';
import { AdminService } from './admin.service';

/** The console's routes, served outside the /v1 prefix (gateway.ts). */
export const ADMIN_ROUTES = [
  'admin/accounts',
  'admin/accounts/:id',
  'admin/accounts/:id/credits',
  'admin/accounts/:id/suspend',
  'admin/accounts/:id/unsuspend',
  'admin/audit',
];

/** No API key (the key guard lets it through); the admin token instead. Not in the public API's document. */
const OperatorsOnly = () => applyDecorators(Public(), UseGuards(AdminGuard), ApiExcludeController());

function origin(req: FastifyRequest): AuditOrigin {
  return { clientIp: req.ip, requestId: requestContext.getStore()?.requestId ?? null };
}

function text(field: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  assertPlainText(field, value);
  return value;
}

/** The operator console (docs/operations.md#operator-console), behind ADMIN_TOKEN. */
@OperatorsOnly()
@Controller('admin')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Get('accounts')
  accounts(
    @Query('email') email: string | undefined,
    @Query('page') page: string | undefined,
    @Query('limit') limit: string | undefined,
  ): Promise<Page<OperatorAccountView>> {
    return this.admin.accounts({ email: text('email', email) || null, ...parsePage(page, limit) });
  }

  @Post('accounts/:id/credits')
  credit(@Param('id') id: string, @Body() body: CreditsDto, @Req() req: FastifyRequest): Promise<LedgerRow> {
    return this.admin.credit(id, body.amount, text('reason', body.reason) as string, origin(req));
  }

  @Post('accounts/:id/suspend')
  @HttpCode(200)
  suspend(@Param('id') id: string, @Body() body: SuspendDto, @Req() req: FastifyRequest): Promise<OperatorAccountView> {
    return this.admin.suspend(id, text('reason', body.reason) as string, origin(req));
  }

  @Post('accounts/:id/unsuspend')
  @HttpCode(200)
  unsuspend(
    @Param('id') id: string,
    @Body() body: OptionalReasonDto,
    @Req() req: FastifyRequest,
  ): Promise<OperatorAccountView> {
    return this.admin.unsuspend(id, text('reason', body?.reason), origin(req));
  }

  @Delete('accounts/:id')
  @HttpCode(204)
  async erase(@Param('id') id: string, @Body() body: OptionalReasonDto, @Req() req: FastifyRequest): Promise<void> {
    await this.admin.erase(id, text('reason', body?.reason), origin(req));
  }

  @Get('audit')
  audit(
    @Query('accountId') accountId: string | undefined,
    @Query('page') page: string | undefined,
    @Query('limit') limit: string | undefined,
  ): Promise<Page<AuditEntryView>> {
    return this.admin.audit({ accountId: text('accountId', accountId) || null, ...parsePage(page, limit) });
  }
}
