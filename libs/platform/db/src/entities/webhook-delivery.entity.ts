import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';

export type WebhookStatus = 'pending' | 'delivered' | 'failed';

/** A finished list's signed POST to its webhook URL, and where its attempts stand (the outbox). */
@Entity('webhook_deliveries')
@Index('webhook_deliveries_due', ['nextAttemptAt'], { where: "status = 'pending'" })
@Check('webhook_deliveries_status_check', "status IN ('pending', 'delivered', 'failed')")
export class WebhookDeliveryEntity {
  @PrimaryColumn('text', { name: 'list_id' })
  listId!: string;

  // The list is named, not imported: list.entity.ts imports this file for its `webhook` side. Only
  // the join is used (the list is never loaded from here), so its id is all this side types.
  @OneToOne('ListEntity', 'webhook', { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'list_id', foreignKeyConstraintName: 'webhook_deliveries_list_id_fkey' })
  list?: { id: string };

  @Column('text')
  url!: string;

  /** The exact bytes signed and sent at every attempt. */
  @Column('text')
  body!: string;

  @Column('text', { default: 'pending' })
  status!: WebhookStatus;

  @Column('integer', { default: 0 })
  attempts!: number;

  @Column('timestamptz', { name: 'next_attempt_at', default: () => 'now()' })
  nextAttemptAt!: Date;

  @Column('timestamptz', { name: 'last_attempt_at', nullable: true })
  lastAttemptAt!: Date | null;

  @Column('text', { name: 'last_error', nullable: true })
  lastError!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'delivered_at', nullable: true })
  deliveredAt!: Date | null;
}
