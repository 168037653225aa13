import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { VerificationResult } from '@mailguard/engine';
import { AccountEntity } from './account.entity';

export type UsageKind = 'single' | 'batch' | 'list' | 'finder' | 'widget';

/** A check an account paid for, one row per request id: its answer and what it finally cost (its usage). */
@Entity('verifications')
@Index('verifications_usage', ['accountId', 'createdAt'])
@Index('verifications_unerased', ['createdAt'], { where: 'email IS NOT NULL' })
@Check('verifications_kind_check', "kind IN ('single', 'batch', 'list', 'finder', 'widget')")
export class VerificationEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text', { name: 'account_id', nullable: true })
  accountId!: string | null;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'verifications_account_id_fkey' })
  account?: AccountEntity | null;

  /** null once erased by retention, with `result`: the usage stays, the address goes. */
  @Column('text', { nullable: true })
  email!: string | null;

  @Column('text')
  kind!: UsageKind;

  @Column('text')
  status!: string;

  @Column('text')
  reason!: string;

  /** What the check finally cost (0 when refunded). */
  @Column('integer')
  credits!: number;

  @Column('jsonb', { nullable: true })
  result!: VerificationResult | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
