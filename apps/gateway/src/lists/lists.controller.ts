import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CreditLedger } from '@mailguard/credits';
import { AppError } from '@mailguard/errors';
import { ListStore, type ListView, type ResultRow } from '@mailguard/lists';
import { Scopes, setCreditsRemaining, type AuthedRequest } from '../auth/access';
import { ApiErrors, ApiQueryParams } from '../docs/api-docs';
import { parsePage } from '../http/paging';
import { PageQuery } from '../http/paging.dto';
import {
  LIST_RESULTS_RESPONSE,
  ListDto,
  ListPageDto,
  ListResultsPageDto,
  ListResultsQuery,
  ListUploadDto,
} from './lists.dto';
import { ListsService } from './lists.service';
import { receiveUpload } from './upload';

/** Our columns after the customer's, in this order (API.md §4, #7). */
const RESULT_COLUMNS = ['status', 'reason', 'confidence', 'reachable', 'is_free', 'is_role', 'is_disposable', 'is_catch_all', 'suggestion', 'score', 'sub_status'];

/** Our column names, each written `mailguard_<name>` when the customer's header already has it: no column lost or ambiguous. */
function resultHeader(columns: string[]): string[] {
  const taken = new Set(columns.map((column) => column.trim().toLowerCase()));
  return RESULT_COLUMNS.map((name) => (taken.has(name) ? `mailguard_${name}` : name));
}

/** A CSV field, quoted when it holds the delimiter, a quote or a line break (RFC 4180). */
function csvField(value: string, delimiter: string): string {
  return value.includes(delimiter) || /["\r\n]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

function resultColumns(row: ResultRow): string[] {
  const result = row.result;
  if (!result) return RESULT_COLUMNS.map(() => '');
  return [
    result.status,
    result.reason,
    result.confidence === null ? '' : String(result.confidence),
    result.reachable,
    String(result.isFree),
    String(result.isRole),
    String(result.isDisposable),
    String(result.smtp.catchAll),
    result.suggestion ?? '',
    String(result.score),
    result.subStatus ?? '',
  ];
}

@ApiTags('validation')
@Controller('lists')
export class ListsController {
  constructor(
    private readonly service: ListsService,
    private readonly lists: ListStore,
    private readonly ledger: CreditLedger,
  ) {}

  /** #4: the upload is streamed to a temporary file, then read as the service says. */
  @Post()
  @Scopes('full', 'lists')
  @HttpCode(202)
  @ApiOperation({ summary: 'Upload a CSV list; its credits are held until it completes' })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: ListUploadDto })
  @ApiAcceptedResponse({ type: ListDto, description: 'The list, queued' })
  @ApiErrors(400, 402, 413)
  async upload(@Req() req: AuthedRequest, @Res({ passthrough: true }) res: Response): Promise<ListView> {
    const upload = await receiveUpload(req as Request);
    try {
      const { list, balance } = await this.service.create(req.auth.account.id, upload);
      setCreditsRemaining(res, balance);
      return list;
    } finally {
      await upload.cleanup();
    }
  }

  @Get()
  @Scopes('full', 'lists', 'read-only')
  @ApiOperation({ summary: 'Lists of the account' })
  @ApiQueryParams(PageQuery)
  @ApiOkResponse({ type: ListPageDto })
  @ApiErrors(400)
  async list(@Req() req: AuthedRequest, @Query('page') pageParam?: string, @Query('limit') limitParam?: string) {
    const { page, limit } = parsePage(pageParam, limitParam);
    const { data, total } = await this.lists.page(req.auth.account.id, page, limit);
    return { data, page, limit, total };
  }

  @Get(':id')
  @Scopes('full', 'lists', 'read-only')
  @ApiOperation({ summary: 'One list and its progress' })
  @ApiParam({ name: 'id', description: 'List id (lst_…)' })
  @ApiOkResponse({ type: ListDto })
  @ApiErrors(404)
  async get(@Param('id') id: string, @Req() req: AuthedRequest): Promise<ListView> {
    return (await this.service.owned(req.auth.account.id, id)).view;
  }

  /** #7: a JSON page, or the whole list as CSV (streamed): the customer's columns, then ours. */
  @Get(':id/results')
  @Scopes('full', 'lists', 'read-only')
  @ApiOperation({ summary: 'Results of a list as JSON pages or CSV' })
  @ApiParam({ name: 'id', description: 'List id (lst_…)' })
  @ApiQueryParams(ListResultsQuery)
  @ApiExtraModels(ListResultsPageDto)
  @ApiOkResponse(LIST_RESULTS_RESPONSE)
  @ApiErrors(400, 404)
  async results(
    @Param('id') id: string,
    @Req() req: AuthedRequest,
    @Res() res: Response,
    @Query('format') format = 'json',
    @Query('status') status?: string,
    @Query('page') pageParam?: string,
    @Query('limit') limitParam?: string,
  ): Promise<void> {
    const list = await this.service.owned(req.auth.account.id, id);
    if (format !== 'json' && format !== 'csv') throw new AppError('bad_request', 'format must be json or csv');
    const filter = this.service.statusFilter(status);
    if (format === 'json') {
      const { page, limit } = parsePage(pageParam, limitParam);
      res.json(await this.service.resultsPage(id, filter, page, limit));
      return;
    }
    const { columns, delimiter } = list.row;
    const line = (values: string[]) => `${values.map((value) => csvField(value, delimiter)).join(delimiter)}\r\n`;
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${id}.csv"`);
    res.write(line([...columns, ...resultHeader(columns)]));
    for (let after = 0; !res.destroyed; ) {
      const rows = await this.lists.results(id, { status: filter, afterRow: after, limit: 1_000 });
      if (rows.length === 0) break;
      const chunk = rows.map((row) => line([...columns.map((_, index) => row.fields[index] ?? ''), ...resultColumns(row)])).join('');
      // Respect back-pressure: a slow client does not make the gateway buffer the whole list.
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
      after = rows[rows.length - 1].row;
    }
    res.end();
  }

  /** #8: cancels a running list (what it holds beyond its charges comes back), or deletes a finished one. */
  @Delete(':id')
  @Scopes('full', 'lists')
  @ApiOperation({ summary: 'Cancel a running list (200) or delete a finished one and its data (204)' })
  @ApiParam({ name: 'id', description: 'List id (lst_…)' })
  @ApiOkResponse({ type: ListDto, description: 'The list, cancelled; what it held beyond its charges is released' })
  @ApiNoContentResponse({ description: 'The finished list is deleted: later reads of it are 404' })
  @ApiErrors(404)
  async remove(@Param('id') id: string, @Req() req: AuthedRequest, @Res({ passthrough: true }) res: Response): Promise<ListView | undefined> {
    await this.service.owned(req.auth.account.id, id);
    const cancelled = await this.lists.cancel(id, req.auth.account.id);
    if (cancelled) {
      setCreditsRemaining(res, (await this.ledger.balance(req.auth.account.id)).balance);
      return cancelled.view;
    }
    if (!(await this.lists.remove(id, req.auth.account.id))) throw new AppError('not_found', `No list ${id}`);
    res.status(204);
    return undefined;
  }
}
