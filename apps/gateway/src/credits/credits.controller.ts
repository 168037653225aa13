import type { Writable } from 'node:stream';
import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CreditLedger, usageBetween, type UsageRow } from '@mailguard/credits';
import { Database } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import { csvLine } from '@mailguard/lists';
import { Area, Scopes, type AuthedRequest } from '../auth/access';
import { ApiErrors, ApiQueryParams } from '../docs/api-docs';
import { sendCsv } from '../http/csv-download';
import { parsePage } from '../http/paging';
import {
  CreditsDto,
  TRANSACTIONS_CSV_COLUMNS,
  TRANSACTIONS_RESPONSE,
  TransactionPageDto,
  TransactionsQuery,
  UsageDto,
  UsageQuery,
} from './credits.dto';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Ledger rows read per query of the CSV export. */
const EXPORT_BATCH = 1_000;

/**
 * A text cell a spreadsheet would take for a formula (=, +, -, @, a tab or a carriage return first)
 * is written after a quote mark: a reason may carry a list's name, which the customer chose.
 */
function inert(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
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

  /**
   * #22: a page of the ledger, newest first; or the whole ledger as CSV (`format=csv`), oldest
   * first, streamed in keyset batches with back-pressure.
   */
  @Get('transactions')
  @ApiOperation({ summary: 'The credit ledger: JSON pages, newest first, or the whole of it as CSV' })
  @ApiQueryParams(TransactionsQuery)
  @ApiExtraModels(TransactionPageDto)
  @ApiOkResponse(TRANSACTIONS_RESPONSE)
  @ApiErrors(400)
  async transactions(
    @Req() req: AuthedRequest,
    @Res() res: FastifyReply,
    @Query('format') format = 'json',
    @Query('page') page?: string,
    @Query('limit') limit?: string,
  ): Promise<void> {
    if (format !== 'json' && format !== 'csv') throw new AppError('bad_request', 'format must be json or csv');
    const accountId = req.auth.account.id;
    if (format === 'json') {
      const paging = parsePage(page, limit);
      await res.send(await this.ledger.transactions(accountId, paging.page, paging.limit));
      return;
    }
    await sendCsv(res, 'transactions.csv', (out) => this.writeCsv(accountId, out));
  }

  private async writeCsv(accountId: string, out: Writable): Promise<void> {
    out.write(csvLine([...TRANSACTIONS_CSV_COLUMNS], ','));
    for (let after: string | null = null; !out.destroyed;) {
      const rows = await this.ledger.transactionsAfter(accountId, after, EXPORT_BATCH);
      if (rows.length === 0) break;
      const chunk = rows
        .map((row) =>
          csvLine(
            [
              row.id,
              row.createdAt,
              row.kind,
              String(row.delta),
              String(row.balanceAfter),
              inert(row.reason),
              inert(row.ref ?? ''),
            ],
            ',',
          ),
        )
        .join('');
      // Respect back-pressure: a slow client does not make the gateway buffer the whole ledger.
      if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve).once('close', resolve));
      after = rows[rows.length - 1].cursor;
    }
  }
}
