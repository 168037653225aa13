import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { TransactionPage, UsageRow } from '@mailguard/credits';
import type { TransactionKind, UsageKind } from '@mailguard/db';
import { unionMembers } from '../docs/api-docs';
import { PageDto, PageQuery } from '../http/paging.dto';

const TRANSACTION_KINDS = unionMembers<TransactionKind>()('grant', 'charge', 'hold', 'release', 'refund', 'adjust');
const USAGE_KINDS = unionMembers<UsageKind>()('single', 'batch', 'list', 'finder', 'widget');

type Transaction = TransactionPage['data'][number];

/** #20 */
export class CreditsDto {
  @ApiProperty({ type: 'integer', description: 'The sum of the ledger' }) balance!: number;
  @ApiProperty({ type: 'integer', description: 'What running lists hold' }) held!: number;
  @ApiProperty({ enum: ['credits'] }) currency!: 'credits';
}

/** #21's query (read by the route: 400 on a bad date or range). */
export class UsageQuery {
  @ApiPropertyOptional({
    format: 'date',
    example: '2026-11-01',
    description: 'First UTC day, inclusive (default: 29 days before to)',
  })
  from?: string;

  @ApiPropertyOptional({
    format: 'date',
    example: '2026-11-30',
    description: 'Last UTC day, inclusive (default: today)',
  })
  to?: string;
}

export class UsageRowDto implements UsageRow {
  @ApiProperty({ format: 'date', example: '2026-11-25' }) date!: string;
  @ApiProperty({ enum: USAGE_KINDS }) kind!: UsageKind;
  @ApiProperty({ type: 'integer' }) checks!: number;
  @ApiProperty({ type: 'integer' }) credits!: number;
}

/** #21: per UTC day and kind, over at most 366 days. */
export class UsageDto {
  @ApiProperty({ type: [UsageRowDto] }) data!: UsageRowDto[];
  @ApiProperty({ format: 'date' }) from!: string;
  @ApiProperty({ format: 'date' }) to!: string;
}

export class TransactionDto implements Transaction {
  @ApiProperty() id!: string;
  @ApiProperty({ type: 'integer', description: 'Negative for charges and holds' }) delta!: number;
  @ApiProperty({ example: 'check jane@example.com' }) reason!: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'What the movement is for (unique per charge)' }) ref!:
    string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'integer' }) balanceAfter!: number;
  @ApiProperty({ enum: TRANSACTION_KINDS }) kind!: TransactionKind;
}

/** #22 */
export class TransactionPageDto extends PageDto implements TransactionPage {
  @ApiProperty({ type: [TransactionDto] }) data!: TransactionDto[];
}

/** #22's query: `format=csv` exports the whole ledger (page and limit are then not read). */
export class TransactionsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ['json', 'csv'], default: 'json' })
  format?: string;
}

/** The columns of the ledger's CSV export, in order. */
export const TRANSACTIONS_CSV_COLUMNS = ['id', 'date', 'kind', 'delta', 'balance_after', 'reason', 'ref'] as const;

/** #22 answers JSON or CSV, as `format` asks. */
export const TRANSACTIONS_RESPONSE = {
  description:
    'A page of ledger rows, newest first (format=json), or the whole ledger as CSV, oldest first (format=csv): ' +
    `${TRANSACTIONS_CSV_COLUMNS.join(', ')} (date: the row's ISO 8601 time)`,
  content: {
    'application/json': { schema: { $ref: getSchemaPath(TransactionPageDto) } },
    'text/csv': { schema: { type: 'string' } },
  },
};
