import type { Writable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { resultKey } from '@mailguard/cache';
import { ENGINE, OUTBOUND } from '@mailguard/core';
import { CreditLedger, USAGE_REF_PREFIX } from '@mailguard/credits';
import type { VerificationEngine } from '@mailguard/engine';
import { AppError } from '@mailguard/errors';
import { newId } from '@mailguard/keys';
import {
  announce,
  checkWebhookTarget,
  csvLine,
  feedList,
  ListStore,
  readCsv,
  resultFields,
  resultHeader,
  type ListView,
  type ResultRow,
  type StoredList,
  type UploadRow,
} from '@mailguard/lists';
import type { Outbound } from '@mailguard/net';
import { CHECK_PIPELINE, type CheckPipeline } from '@mailguard/queue';
import { isStatus, STATUSES, type Status } from '@mailguard/verdict';

/** Rows stored per statement (ListStore.insertRows stores each batch by domain: the more rows, the closer a domain's lie). */
const INSERT_BATCH = 5_000;
/** A batch is stored once it holds this much text too: a batch of wide rows (up to 256 KB each) is serialised in bounded time, not 5,000 × 256 KB at once. */
const INSERT_BATCH_BYTES = 1024 * 1024;
/** Rows read per query while a CSV export streams. */
const EXPORT_BATCH = 1_000;

/** A CSV on disk with the upload's fields (`name`, `emailColumn`, `webhookUrl`). */
export interface ListSource {
  /** null when the upload had no file. */
  path: string | null;
  filename: string | null;
  fields: Record<string, string | undefined>;
}

export interface ResultsPage {
  data: Array<Pick<ResultRow, 'row' | 'email' | 'result'>>;
  page: number;
  limit: number;
  total: number;
}

/** Bulk lists (#4, #6, #7) for REST and the MCP tools alike. */
@Injectable()
export class ListsService {
  constructor(
    @Inject(ENGINE) private readonly engine: VerificationEngine,
    @Inject(CHECK_PIPELINE) private readonly pipeline: CheckPipeline,
    /** Where webhook URLs are judged at upload, as the deliveries will be. */
    @Inject(OUTBOUND) private readonly outbound: Outbound,
    private readonly lists: ListStore,
    private readonly ledger: CreditLedger,
  ) {}

  /** #5: one page of the account's lists. */
  async page(accountId: string, page: number, limit: number) {
    const { data, total } = await this.lists.page(accountId, page, limit);
    return { data, page, limit, total };
  }

  /** The account's list, or 404 (another account's list is no different from none). */
  async owned(accountId: string, id: string) {
    const list = await this.lists.find(id, accountId);
    if (!list) throw new AppError('not_found', `No list ${id}`);
    return list;
  }

  /** The account's list with its rows: 404 as `owned`, 410 once retention has erased them (the list stays). */
  async withRows(accountId: string, id: string) {
    const list = await this.owned(accountId, id);
    if (list.view.expiredAt)
      throw new AppError(
        'expired',
        `The results of list ${id} were erased on ${list.view.expiredAt}, past the retention period; the list and its counts are kept`,
      );
    return list;
  }

  /**
   * #4: the CSV is read as a stream and stored in batches; duplicates and syntax failures cost
   * nothing; the chargeable rows are held in the same transaction that queues the list (402 when
   * the balance is short, and then nothing of the upload is kept). `balance` is the one after.
   */
  async create(accountId: string, source: ListSource): Promise<{ list: ListView; balance: number }> {
    if (!source.path) throw new AppError('bad_request', 'The CSV must be sent in a multipart part named "file"');
    const id = newId(USAGE_REF_PREFIX.list);
    let created = false;
    try {
      const webhookUrl = source.fields.webhookUrl?.trim() || null;
      if (webhookUrl) await checkWebhookTarget(webhookUrl, this.outbound);
      const name = (source.fields.name?.trim() || source.filename || 'list.csv').slice(0, 200);
      let emailColumn = 0;
      let batch: UploadRow[] = [];
      let batchBytes = 0;
      let row = 0;
      const records = readCsv(
        source.path,
        { requested: source.fields.emailColumn ?? null, option: 'emailColumn' },
        async (head) => {
          emailColumn = head.emailColumn;
          await this.lists.create({
            id,
            accountId,
            name,
            columns: head.columns,
            delimiter: head.delimiter,
            emailColumn,
            webhookUrl,
          });
          created = true;
        },
      );
      for await (const fields of records) {
        const email = (fields[emailColumn] ?? '').trim();
        const local = this.engine.inspectLocally(email);
        const valid = local.syntaxValid;
        batch.push({
          row: ++row,
          fields,
          email,
          key: valid ? resultKey(email) : null,
          domain: valid ? local.asciiDomain : null,
          result: valid ? null : this.engine.conclude(local, null),
        });
        for (const field of fields) batchBytes += field.length;
        if (batch.length >= INSERT_BATCH || batchBytes >= INSERT_BATCH_BYTES) {
          await this.lists.insertRows(id, batch);
          batch = [];
          batchBytes = 0;
        }
      }
      if (batch.length > 0) await this.lists.insertRows(id, batch);
      const sealed = await this.lists.seal(id, accountId, row);
      if (!sealed.sealed) {
        const { balance } = await this.ledger.balance(accountId);
        throw new AppError(
          'insufficient_credits',
          `Insufficient credits: this list has ${sealed.chargeable} chargeable rows and the balance is ${balance}`,
        );
      }
      const finished = sealed.chargeable === 0 ? await this.lists.completeIfDone(id) : null;
      if (finished) await announce(finished, this.pipeline.jobs);
      else await feedList(id, this.pipeline.jobs);
      const { balance } = await this.ledger.balance(accountId);
      return { list: (await this.lists.find(id))?.view as ListView, balance };
    } catch (error) {
      if (created) await this.lists.discard(id);
      throw error;
    }
  }

  /** The `status` filter of #7: null for every row; 400 for a value that is no status. */
  statusFilter(status: string | undefined): Status | null {
    if (status === undefined) return null;
    if (!isStatus(status)) throw new AppError('bad_request', `status must be one of ${STATUSES.join(', ')}`);
    return status;
  }

  /** #7 as JSON: one page of `{ row, email, result }` of a list already found to be the account's. */
  async resultsPage(id: string, filter: Status | null, page: number, limit: number): Promise<ResultsPage> {
    const rows = await this.lists.results(id, { status: filter, offset: (page - 1) * limit, limit });
    return {
      data: rows.map((row) => ({ row: row.row, email: row.email, result: row.result })),
      page,
      limit,
      total: await this.lists.countResults(id, filter),
    };
  }

  /**
   * #7 as CSV, streamed: the customer's columns, then ours, for a list already found to be the
   * account's. Stops when the client has gone.
   */
  async writeCsv(list: StoredList, filter: Status | null, out: Writable): Promise<void> {
    const { id } = list.view;
    const { columns, delimiter } = list.row;
    const line = (values: string[]) => csvLine(values, delimiter);
    out.write(line([...columns, ...resultHeader(columns)]));
    for (let after = 0; !out.destroyed;) {
      const rows = await this.lists.results(id, { status: filter, afterRow: after, limit: EXPORT_BATCH });
      if (rows.length === 0) break;
      const chunk = rows
        .map((row) => line([...columns.map((_, index) => row.fields[index] ?? ''), ...resultFields(row.result)]))
        .join('');
      // Respect back-pressure: a slow client does not make the gateway buffer the whole list.
      if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve).once('close', resolve));
      after = rows[rows.length - 1].row;
    }
  }

  /**
   * #8: cancels a running list (what it holds beyond its charges comes back: `balance` is the one
   * after), or deletes a finished one (null).
   */
  async remove(accountId: string, id: string): Promise<{ cancelled: ListView; balance: number } | null> {
    await this.owned(accountId, id);
    const cancelled = await this.lists.cancel(id, accountId);
    if (cancelled) return { cancelled: cancelled.view, balance: (await this.ledger.balance(accountId)).balance };
    if (!(await this.lists.remove(id, accountId))) throw new AppError('not_found', `No list ${id}`);
    return null;
  }
}
