import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreditLedger, usageBetween, type TransactionPage, type UsageRow } from '@mailguard/credits';
import { Database } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import { Area, Scopes, type AuthedRequest } from '../auth/access';
import { ApiErrors, ApiQueryParams } from '../docs/api-docs';
import { parsePage } from '../http/paging';
import { PageQuery } from '../http/paging.dto';
import { CreditsDto, TransactionPageDto, UsageDto, UsageQuery } from './credits.dto';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

function parseDate(name: string, value: string | undefined, fallback: Date): string {
  if (value === undefined) return fallback.toISOString().slice(0, 10);
  const parsed = DATE.test(value) ? new Date(`${value}T00:00:00Z`) : null;
  if (!parsed || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw new AppError('bad_request', `${name} must be a UTC date written YYYY-MM-DD`);
  }
  return value;
}

/** Every scope may read its own credits (docs/api.md#authentication). */
@ApiTags('credits')
@Controller('credits')
@Scopes('full', 'verify', 'lists', 'read-only')
// Signed-in people: usage and transactions are billing; the balance, which every answer carries anyway, everyone's.
@Area('billing')
export class CreditsController {
  constructor(
    private readonly ledger: CreditLedger,
    private readonly database: Database,
  ) {}

  @Get()
  @Area('balance')
  @ApiOperation({ summary: 'Credit balance' })
  @ApiOkResponse({ type: CreditsDto })
  async balance(@Req() req: AuthedRequest): Promise<{ balance: number; held: number; currency: 'credits' }> {
    const { balance, held } = await this.ledger.balance(req.auth.account.id);
    return { balance, held, currency: 'credits' };
  }

  @Get('usage')
  @ApiOperation({ summary: 'Checks and credits per UTC day and kind' })
  @ApiQueryParams(UsageQuery)
  @ApiOkResponse({ type: UsageDto })
  @ApiErrors(400)
  async usage(
    @Req() req: AuthedRequest,
    @Query('from') from?: string,
    @Query('to') to?: string,
  ): Promise<{ data: UsageRow[]; from: string; to: string }> {
    const end = parseDate('to', to, new Date());
    const start = parseDate('from', from, new Date(Date.parse(`${end}T00:00:00Z`) - 29 * DAY_MS));
    if (start > end) throw new AppError('bad_request', 'from must not be after to');
    if (Date.parse(end) - Date.parse(start) > 366 * DAY_MS)
      throw new AppError('bad_request', 'The range may span at most 366 days');
    return {
      data: await usageBetween(this.database.dataSource, req.auth.account.id, start, end),
      from: start,
      to: end,
    };
  }

  @Get('transactions')
  @ApiOperation({ summary: 'The credit ledger, newest first' })
  @ApiQueryParams(PageQuery)
  @ApiOkResponse({ type: TransactionPageDto })
  @ApiErrors(400)
  transactions(
    @Req() req: AuthedRequest,
    @Query('page') page?: string,
    @Query('limit') limit?: string,
  ): Promise<TransactionPage> {
    const paging = parsePage(page, limit);
    return this.ledger.transactions(req.auth.account.id, paging.page, paging.limit);
  }
}
