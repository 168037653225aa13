import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToOne,
  PrimaryColumn,
} from 'typeorm';
import { AccountEntity } from './account.entity';
import type { WebhookDeliveryEntity } from './webhook-delivery.entity';

/** `paused`: its account is suspended (no rows fed, credits still held) until an operator unsuspends it. */
export type ListStatus = 'uploading' | 'queued' | 'processing' | 'paused' | 'completed' | 'failed' | 'cancelled';

/** A bulk list (docs/api.md#the-list-object): its counters are the progress customers poll. */
@Entity('lists')
// The migration orders it (account_id, created_at DESC): newest first, as the lists page reads.
@Index('lists_account', ['accountId', 'createdAt'])
@Index('lists_running', ['status'], { where: "status IN ('queued', 'processing')" })
@Index('lists_unexpired', ['completedAt'], { where: 'expired_at IS NULL' })
@Check(
  'lists_status_check',
  "status IN ('uploading', 'queued', 'processing', 'paused', 'completed', 'failed', 'cancelled')",
)
export class ListEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'lists_account_id_fkey' })
  account?: AccountEntity;

  @Column('text')
  name!: string;

  @Column('text')
  status!: ListStatus;

  /** The CSV's header, in order. */
  @Column('jsonb')
  columns!: string[];

  @Column('text')
  delimiter!: string;

  @Column('integer', { name: 'email_column' })
  emailColumn!: number;

  @Column('text', { name: 'webhook_url', nullable: true })
  webhookUrl!: string | null;

  @Column('integer', { default: 0 })
  total!: number;

  @Column('integer', { default: 0 })
  processed!: number;

  @Column('integer', { default: 0 })
  duplicates!: number;

  @Column('integer', { default: 0 })
  valid!: number;

  @Column('integer', { default: 0 })
  risky!: number;

  @Column('integer', { default: 0 })
  invalid!: number;

  @Column('integer', { name: 'credits_held', default: 0 })
  creditsHeld!: number;

  /** Rows charged so far (not jobs: a row is paid for once). */
  @Column('integer', { name: 'credits_charged', default: 0 })
  creditsCharged!: number;

  @Column('text', { nullable: true })
  error!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'started_at', nullable: true })
  startedAt!: Date | null;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt!: Date | null;

  /** When its feed last read every row it had to send (null: never, or its rows are to be sent again). */
  @Column('timestamptz', { name: 'fed_at', nullable: true })
  fedAt!: Date | null;

  /** When a row of it last settled (null: none yet). */
  @Column('timestamptz', { name: 'settled_at', nullable: true })
  settledAt!: Date | null;

  /** Its webhook's delivery, once the list has ended (only read with the list, see ListStore). */
  @OneToOne('WebhookDeliveryEntity', (delivery: WebhookDeliveryEntity) => delivery.list)
  webhook?: WebhookDeliveryEntity | null;

  /** When retention erased its rows (the list and its counters stay); null while they are kept. */
  @Column('timestamptz', { name: 'expired_at', nullable: true })
  expiredAt!: Date | null;
}
