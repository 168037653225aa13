import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type TransactionKind = 'grant' | 'charge' | 'hold' | 'release' | 'refund';

@Entity('credit_transactions')
export class CreditTransactionEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column('text', { name: 'account_id' })
  accountId!: string;

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
