import { Inject, Injectable } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { LOGGER } from '@mailguard/core';
import { CreditLedger } from '@mailguard/credits';
import type { KeyScope } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import type { Authenticated } from '@mailguard/keys';
import type { Logger } from '@mailguard/logger';
import { createToolServer, MAX_CSV_TEXT_BYTES, type ToolError, type ToolName } from '@mailguard/mcp';
import { admit } from '../auth/api-key.guard';
import { routeScopes } from '../auth/access';
import { KeyMeter } from '../auth/key-meter';
import { CreditsController } from '../credits/credits.controller';
import { FinderController } from '../finder/finder.controller';
import { FinderService } from '../finder/finder.service';
import { describeError } from '../http/error.filter';
import { assertPlainFields } from '../http/input-policy.pipe';
import { ListsController } from '../lists/lists.controller';
import { ListsService } from '../lists/lists.service';
import { UploadStaging } from '../lists/upload';
import { ValidationController } from '../validation/validation.controller';
import { VerificationService } from '../validation/verification.service';

/** Each tool's scopes are those of the REST route it mirrors (docs/mcp.md). */
const SCOPES: Record<ToolName, KeyScope[]> = {
  verify_email: routeScopes(ValidationController, 'single'),
  verify_emails: routeScopes(ValidationController, 'batch'),
  report_outcome: routeScopes(ValidationController, 'feedback'),
  find_email: routeScopes(FinderController, 'find'),
  domain_insight: routeScopes(FinderController, 'domain'),
  create_list: routeScopes(ListsController, 'upload'),
  list_status: routeScopes(ListsController, 'get'),
  list_results: routeScopes(ListsController, 'results'),
  credits: routeScopes(CreditsController, 'balance'),
};

/** Arguments that are judged rather than refused for odd characters, as in REST bodies; the CSV is checked as CSV. */
const UNCHECKED_TEXT = new Set(['email', 'emails', 'csv']);
/** list_results pages as GET /v1/lists/:id/results does by default. */
const RESULTS_PAGE_SIZE = 20;

/**
 * The MCP tools of one authenticated key, metered like REST by the same code: every tool call
 * counts against the key's rate-limit window (shared with REST), is admitted by the scopes of the
 * REST route it mirrors, and runs the services that route runs (same credits, ledger references
 * and usage rows: a tool call's usage kind is its REST call's — single, batch, finder, list).
 */
@Injectable()
export class McpTools {
  constructor(
    private readonly meter: KeyMeter,
    private readonly verifications: VerificationService,
    private readonly finder: FinderService,
    private readonly lists: ListsService,
    private readonly staging: UploadStaging,
    private readonly ledger: CreditLedger,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  serverFor(auth: Authenticated): Server {
    const accountId = auth.account.id;
    return createToolServer({
      admit: async (name) => admit(auth, await this.meter.count(auth), SCOPES[name]),
      describeError: (error) => this.describe(error, auth),
      handlers: {
        verify_email: async ({ email }) => {
          const { results, balance } = await this.verifications.check(accountId, [email], 'single');
          return { value: results[0], balance };
        },
        verify_emails: async ({ emails }) => {
          const { results, balance } = await this.verifications.check(accountId, emails, 'batch');
          return { value: { results }, balance };
        },
        report_outcome: async ({ email, outcome }) => {
          await this.verifications.feedback(accountId, email, outcome);
          return { value: { accepted: true } };
        },
        find_email: async (query) => {
          assertPlainFields(query, UNCHECKED_TEXT);
          const { answer, balance } = await this.finder.find(accountId, query);
          return { value: answer, balance };
        },
        domain_insight: async (input) => {
          assertPlainFields(input, UNCHECKED_TEXT);
          return { value: await this.finder.domain(input.domain) };
        },
        create_list: async (input) => {
          assertPlainFields(input, UNCHECKED_TEXT);
          const { csv, ...fields } = input;
          return this.createList(accountId, csv, fields);
        },
        list_status: async (input) => {
          assertPlainFields(input, UNCHECKED_TEXT);
          return { value: (await this.lists.owned(accountId, input.id)).view };
        },
        list_results: async (input) => {
          assertPlainFields(input, UNCHECKED_TEXT);
          await this.lists.withRows(accountId, input.id);
          return {
            value: await this.lists.resultsPage(
              input.id,
              this.lists.statusFilter(input.status),
              input.page ?? 1,
              RESULTS_PAGE_SIZE,
            ),
          };
        },
        credits: async () => {
          const { balance, held } = await this.ledger.balance(accountId);
          return { value: { balance, held, currency: 'credits' } };
        },
      },
    });
  }

  /** The CSV is staged (under the upload limits) and goes through the same upload code as POST /v1/lists. */
  private async createList(accountId: string, csv: string, fields: Record<string, string | undefined>) {
    const bytes = Buffer.byteLength(csv);
    if (bytes > MAX_CSV_TEXT_BYTES) {
      throw new AppError(
        'payload_too_large',
        `The CSV (${bytes} bytes) is larger than ${MAX_CSV_TEXT_BYTES / 1024 / 1024} MB; upload larger lists to POST /v1/lists (up to 50 MB)`,
      );
    }
    const staged = await this.staging.stageText(accountId, csv);
    try {
      const { list, balance } = await this.lists.create(accountId, { path: staged.path, filename: null, fields });
      return { value: list, balance };
    } finally {
      await staged.cleanup();
    }
  }

  private describe(error: unknown, auth: Authenticated): ToolError {
    const { status, body } = describeError(error);
    if (status >= 500) this.logger.error({ err: error, keyId: auth.key.id }, 'MCP tool call failed');
    const wait = error instanceof AppError ? error.retryAfterSeconds : undefined;
    return wait === undefined ? body : { ...body, retryAfterSeconds: wait };
  }
}
