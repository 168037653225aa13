import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { VerificationResult } from '@mailguard/engine';

export type UsageKind = 'single' | 'batch' | 'list' | 'finder' | 'widget';

@Entity('verifications')
export class VerificationEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text', { name: 'account_id', nullable: true })
  accountId!: string | null;

  @Column('text')
  email!: string;

  @Column('text')
  kind!: UsageKind;

  @Column('text')
  status!: string;

  @Column('text')
  reason!: string;

  /** What the check finally cost (0 when refunded). */
  @Column('integer')
  credits!: number;

  @Column('jsonb')
  result!: VerificationResult;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
