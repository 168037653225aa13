import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from './account.entity';
import type { UsageKind } from './verification.entity';

/** The checks paid up front, answer to come (a list holds its credits instead). */
export type ChargeKind = Exclude<UsageKind, 'list'>;

/** One check a charge pays for: the request id its answer is stored under, and its address. */
export interface ChargedCheck {
  id: string;
  email: string;
}

/**
 * A charge taken up front whose answer is still to come, from the charge's statement until the
 * gateway settles it (written only by CreditLedger); past `dueAt`, the charge sweep's.
 */
@Entity('open_charges')
@Index('open_charges_due', ['dueAt'])
@Check('open_charges_kind_check', "kind IN ('single', 'batch', 'finder', 'widget')")
export class OpenChargeEntity {
  @PrimaryColumn('text', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'open_charges_account_id_fkey' })
  account?: AccountEntity;

  /** The charge's ledger ref. */
  @PrimaryColumn('text')
  ref!: string;

  @Column('integer')
  amount!: number;

  @Column('text')
  kind!: ChargeKind;

  /** The checks it pays for; none for the finder, whose answer only its gateway ever holds. */
  @Column('jsonb')
  checks!: ChargedCheck[];

  /** The check's deadline plus the sweep's margin. */
  @Column('timestamptz', { name: 'due_at' })
  dueAt!: Date;
}
