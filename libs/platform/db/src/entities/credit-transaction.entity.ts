import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/** `adjust` is an operator's negative correction (a positive one is a `grant`). */
export type TransactionKind = 'grant' | 'charge' | 'hold' | 'release' | 'refund' | 'adjust';

/** The append-only ledger: one row per movement of a balance, written only by CreditLedger. */
@Entity('credit_transactions')
// The migration orders it (account_id, id DESC): newest first, as the transactions page reads.
@Index('credit_transactions_account', ['accountId', 'id'])
// Usage sums an account's charges and refunds by day.
@Index('credit_transactions_usage', ['accountId', 'createdAt'])
// One charge and at most one refund per check, whatever retries or races happen.
@Index('credit_transactions_once', ['accountId', 'kind', 'ref'], {
  unique: true,
  where: "ref IS NOT NULL AND kind IN ('charge', 'refund')",
})
@Check('credit_transactions_kind_check', "kind IN ('grant', 'charge', 'hold', 'release', 'refund', 'adjust')")
export class CreditTransactionEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column('text', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'credit_transactions_account_id_fkey' })
  account?: AccountEntity;

  @Column('integer')
  delta!: number;

  @Column('text')
  kind!: TransactionKind;

  @Column('text')
  reason!: string;

  @Column('text', { nullable: true })
  ref!: string | null;

  @Column('integer', { name: 'balance_after' })
  balanceAfter!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
