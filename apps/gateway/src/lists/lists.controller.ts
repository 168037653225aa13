import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { resultKey } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { CreditLedger } from '@mailguard/credits';
import type { VerificationEngine } from '@mailguard/engine';
import { AppError } from '@mailguard/errors';
import { newId } from '@mailguard/keys';
import { announce, checkWebhookTarget, ListStore, readCsv, type ListView, type ResultRow, type UploadRow } from '@mailguard/lists';
import { createOutbound, type Outbound } from '@mailguard/net';
import { listOptions } from '@mailguard/pipeline';
import type { CheckPipeline } from '@mailguard/queue';
import { Scopes, setCreditsRemaining, type AuthedRequest } from '../auth/access';
import { parsePage } from '../http/paging';
import { ENGINE, PIPELINE } from '../infra.module';
import { receiveUpload } from './upload';

const INSERT_BATCH = 1_000;
/** A batch is stored once it holds this much text too: a batch of wide rows (up to 256 KB each) is serialised in bounded time, not 1,000 × 256 KB at once. */
const INSERT_BATCH_BYTES = 1024 * 1024;
const RESULT_STATUSES = ['valid', 'risky', 'invalid', 'unknown'];
/** Our columns after the customer's, in this order (API.md §4, #7). */
const RESULT_COLUMNS = ['status', 'reason', 'confidence', 'reachable', 'is_free', 'is_role', 'is_disposable', 'is_catch_all', 'suggestion'];

/** A CSV field, quoted when it holds the delimiter, a quote or a line break (RFC 4180). */
function csvField(value: string, delimiter: string): string {
  return value.includes(delimiter) || /["\r\n]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

function resultColumns(row: ResultRow): string[] {
  const result = row.result;
  if (!result) return RESULT_COLUMNS.map(() => '');
  return [result.status, result.reason, result.confidence === null ? '' : String(result.confidence), result.reachable, String(result.isFree), String(result.isRole), String(result.isDisposable), String(result.smtp.catchAll), result.suggestion ?? ''];
}

@Controller('lists')
export class ListsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ENGINE) private readonly engine: VerificationEngine,
    @Inject(PIPELINE) private readonly pipeline: CheckPipeline,
    private readonly lists: ListStore,
    private readonly ledger: CreditLedger,
  ) {
    this.outbound = createOutbound(config);
  }

  /** Where webhook URLs are judged at upload, as the deliveries will be. */
  private readonly outbound: Outbound;

  private async owned(req: AuthedRequest, id: string) {
    const list = await this.lists.find(id, req.auth.account.id);
    if (!list) throw new AppError('not_found', `No list ${id}`);
    return list;
  }

  /**
   * #4: the CSV is read as a stream and stored in batches; duplicates and syntax failures cost
   * nothing; the chargeable rows are held in the same transaction that queues the list (402 when
   * the balance is short, and then nothing of the upload is kept).
   */
  @Post()
  @Scopes('full', 'lists')
  @HttpCode(202)
  async upload(@Req() req: AuthedRequest, @Res({ passthrough: true }) res: Response): Promise<ListView> {
    const upload = await receiveUpload(req as Request);
    const accountId = req.auth.account.id;
    const id = newId('lst');
    let created = false;
    try {
      if (!upload.path) throw new AppError('bad_request', 'The CSV must be sent in a multipart part named "file"');
      const webhookUrl = upload.fields.webhookUrl?.trim() || null;
      if (webhookUrl) await checkWebhookTarget(webhookUrl, this.outbound);
      const name = (upload.fields.name?.trim() || upload.filename || 'list.csv').slice(0, 200);
      let emailColumn = 0;
      let batch: UploadRow[] = [];
      let batchBytes = 0;
      let row = 0;
      const records = readCsv(upload.path, upload.fields.emailColumn ?? null, async (head) => {
        emailColumn = head.emailColumn;
        await this.lists.create({ id, accountId, name, columns: head.columns, delimiter: head.delimiter, emailColumn, webhookUrl });
        created = true;
      });
      for await (const fields of records) {
        const email = (fields[emailColumn] ?? '').trim();
        const local = this.engine.inspectLocally(email);
        const valid = local.syntaxValid;
        batch.push({ row: ++row, fields, email, key: valid ? resultKey(email) : null, domain: valid ? local.asciiDomain : null, result: valid ? null : this.engine.conclude(local, null) });
        for (const field of fields) batchBytes += field.length;
        if (batch.length >= INSERT_BATCH || batchBytes >= INSERT_BATCH_BYTES) {
          await this.lists.insertRows(id, batch);
          batch = [];
          batchBytes = 0;
        }
      }
      if (batch.length > 0) await this.lists.insertRows(id, batch);
      const sealed = await this.lists.seal(id, accountId, (manager, amount) => this.ledger.hold(accountId, amount, `hold: list ${name} (${amount} rows)`, id, manager));
      if (!sealed.sealed) {
        const { balance } = await this.ledger.balance(accountId);
        throw new AppError('insufficient_credits', `Insufficient credits: this list has ${sealed.chargeable} chargeable rows and the balance is ${balance}`);
      }
      const finished = sealed.chargeable === 0 ? await this.lists.completeIfDone(id) : null;
      if (finished) await announce(finished, this.pipeline.jobs, listOptions(this.config));
      else await this.pipeline.jobs.enqueue('list.feed', { listId: id }, { jobId: `${id}.feed.0` });
      setCreditsRemaining(res, (await this.ledger.balance(accountId)).balance);
      return (await this.lists.find(id))?.view as ListView;
    } catch (error) {
      if (created) await this.lists.discard(id);
      throw error;
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
    return (await this.owned(req, id)).view;
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
    const list = await this.owned(req, id);
    if (format !== 'json' && format !== 'csv') throw new AppError('bad_request', 'format must be json or csv');
    if (status !== undefined && !RESULT_STATUSES.includes(status)) throw new AppError('bad_request', `status must be one of ${RESULT_STATUSES.join(', ')}`);
    const filter = status ?? null;
    if (format === 'json') {
      const { page, limit } = parsePage(pageParam, limitParam);
      const rows = await this.lists.results(id, { status: filter, offset: (page - 1) * limit, limit });
      res.json({ data: rows.map((row) => ({ row: row.row, email: row.email, result: row.result })), page, limit, total: await this.lists.countResults(id, filter) });
      return;
    }
    const { columns, delimiter } = list.row;
    const line = (values: string[]) => `${values.map((value) => csvField(value, delimiter)).join(delimiter)}\r\n`;
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${id}.csv"`);
    res.write(line([...columns, ...RESULT_COLUMNS]));
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
  async remove(@Param('id') id: string, @Req() req: AuthedRequest, @Res({ passthrough: true }) res: Response): Promise<ListView | undefined> {
    await this.owned(req, id);
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
