import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CreditLedger } from '@mailguard/credits';
import { AppError } from '@mailguard/errors';
import { csvLine, ListStore, resultFields, resultHeader, type ListView } from '@mailguard/lists';
import { Scopes, setCreditsRemaining, type AuthedRequest } from '../auth/access';
import { parsePage } from '../http/paging';
import { ListsService } from './lists.service';
import { receiveUpload } from './upload';

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
  async list(@Req() req: AuthedRequest, @Query('page') pageParam?: string, @Query('limit') limitParam?: string) {
    const { page, limit } = parsePage(pageParam, limitParam);
    const { data, total } = await this.lists.page(req.auth.account.id, page, limit);
    return { data, page, limit, total };
  }

  @Get(':id')
  @Scopes('full', 'lists', 'read-only')
  async get(@Param('id') id: string, @Req() req: AuthedRequest): Promise<ListView> {
    return (await this.service.owned(req.auth.account.id, id)).view;
  }

  /** #7: a JSON page, or the whole list as CSV (streamed): the customer's columns, then ours. */
  @Get(':id/results')
  @Scopes('full', 'lists', 'read-only')
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
    const line = (values: string[]) => csvLine(values, delimiter);
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${id}.csv"`);
    res.write(line([...columns, ...resultHeader(columns)]));
    for (let after = 0; !res.destroyed; ) {
      const rows = await this.lists.results(id, { status: filter, afterRow: after, limit: 1_000 });
      if (rows.length === 0) break;
      const chunk = rows.map((row) => line([...columns.map((_, index) => row.fields[index] ?? ''), ...resultFields(row.result)])).join('');
      // Respect back-pressure: a slow client does not make the gateway buffer the whole list.
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
      after = rows[rows.length - 1].row;
    }
    res.end();
  }

  /** #8: cancels a running list (what it holds beyond its charges comes back), or deletes a finished one. */
  @Delete(':id')
  @Scopes('full', 'lists')
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
