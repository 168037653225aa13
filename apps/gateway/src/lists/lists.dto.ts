import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { RESULT_COLUMNS, type ListView, type WebhookState } from '@mailguard/lists';
import { STATUSES } from '@mailguard/verdict';
import { unionMembers } from '../docs/api-docs';
import { PageDto, PageQuery } from '../http/paging.dto';
import { VerificationResultDto } from '../validation/result.dto';
import type { ResultsPage } from './lists.service';
import { MAX_UPLOAD_BYTES } from './upload';

type ListResultRow = ResultsPage['data'][number];

const LIST_STATUSES = unionMembers<ListView['status']>()(
  'queued',
  'processing',
  'paused',
  'completed',
  'failed',
  'cancelled',
);

/** #4: the multipart form (read by `UploadStaging.receive`, which answers 400, 408 and 413). */
export class ListUploadDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description: `The CSV (UTF-8, comma or semicolon, header row), up to ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`,
  })
  file!: unknown;

  @ApiPropertyOptional({
    description: 'The header of the email column; else the first one named like email, or holding addresses',
  })
  emailColumn?: string;

  @ApiPropertyOptional({ description: 'Defaults to the file name' })
  name?: string;

  @ApiPropertyOptional({
    format: 'uri',
    description: 'Receives the list, signed (X-MailGuard-Signature), when it completes or fails',
  })
  webhookUrl?: string;
}

export class ListCountsDto {
  @ApiProperty({ type: 'integer' }) valid!: number;
  @ApiProperty({ type: 'integer' }) risky!: number;
  @ApiProperty({ type: 'integer' }) invalid!: number;
}

const WEBHOOK_STATUSES = unionMembers<WebhookState['status']>()('pending', 'delivered', 'failed');

export class ListWebhookDto implements WebhookState {
  @ApiProperty({
    enum: WEBHOOK_STATUSES,
    description: 'pending until the URL answers 2xx (delivered) or the last of 10 attempts fails (failed)',
  })
  status!: WebhookState['status'];
  @ApiProperty({ type: 'integer', description: 'Attempts so far; the delays between them double' })
  attempts!: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) lastAttemptAt!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'null once delivered or failed' })
  nextAttemptAt!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "Why the last attempt failed (the URL's status or error)",
  })
  lastError!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) deliveredAt!: string | null;
}

/** Rows of a running list waiting for a greylisting retry. */
export class ListGreylistedDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Rows waiting for their retry' }) rows!: number;
  @ApiProperty({ format: 'date-time', description: 'When the next retry is due' }) nextRetryAt!: string;
}

/** docs/api.md#the-list-object */
export class ListDto implements ListView {
  @ApiProperty({ example: 'lst_3kXhN0a1' }) id!: string;
  @ApiProperty({ example: 'leads.csv' }) name!: string;
  @ApiProperty({ enum: LIST_STATUSES }) status!: ListView['status'];
  @ApiProperty({ type: 'integer', description: 'Every data row, duplicates and syntax failures included' })
  total!: number;
  @ApiProperty({ type: 'integer' }) processed!: number;
  @ApiProperty({ type: 'integer' }) duplicates!: number;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100 }) percent!: number;
  @ApiProperty({ type: 'integer', nullable: true }) etaSeconds!: number | null;
  @ApiProperty({ type: ListCountsDto }) counts!: ListCountsDto;
  @ApiProperty({ type: 'integer' }) creditsHeld!: number;
  @ApiProperty({ type: 'integer' }) creditsCharged!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) startedAt!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) completedAt!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When its rows were erased after the retention period (its results then answer 410); null while kept',
  })
  expiredAt!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) error!: string | null;
  @ApiProperty({
    type: ListWebhookDto,
    nullable: true,
    description:
      'Its webhook delivery once the list has ended; null without a webhookUrl (not part of the POSTed body)',
  })
  webhook!: ListWebhookDto | null;
  @ApiProperty({
    type: ListGreylistedDto,
    nullable: true,
    description:
      'Rows of a running list waiting for a greylisting retry and when the next is due (etaSeconds says little meanwhile); null when none waits',
  })
  greylisted!: ListGreylistedDto | null;
}

/** #5 */
export class ListPageDto extends PageDto {
  @ApiProperty({ type: [ListDto] }) data!: ListDto[];
}

export class ListResultRowDto implements ListResultRow {
  @ApiProperty({ type: 'integer', description: 'The data row, from 1' }) row!: number;
  @ApiProperty() email!: string;
  @ApiProperty({ type: VerificationResultDto, nullable: true, description: 'null until the row is checked' })
  result!: VerificationResultDto | null;
}

/** #7 as JSON */
export class ListResultsPageDto extends PageDto implements ResultsPage {
  @ApiProperty({ type: [ListResultRowDto] }) data!: ListResultRowDto[];
}

/** #7's query (read by the route: 400 on an unknown format or status). */
export class ListResultsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ['json', 'csv'], default: 'json' })
  format?: string;

  @ApiPropertyOptional({ enum: STATUSES, description: 'Only the rows whose result has this status' })
  status?: string;
}

/** #7 answers JSON or CSV, as `format` asks. */
export const LIST_RESULTS_RESPONSE = {
  description:
    'A page of `{ row, email, result }` (format=json), or the whole list as CSV (format=csv): ' +
    `the input columns, then ${RESULT_COLUMNS.join(', ')} ` +
    '(a name the input already uses is written mailguard_<name>)',
  content: {
    'application/json': { schema: { $ref: getSchemaPath(ListResultsPageDto) } },
    'text/csv': { schema: { type: 'string' } },
  },
};
