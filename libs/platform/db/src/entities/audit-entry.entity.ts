import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/**
 * One change of keys, members, passwords, sessions or an operator's action:
 * append-only, written through `recordAudit` (libs/product/accounts).
 */
@Entity('audit_log')
// The migration orders it (account_id, id DESC): newest first, as the audit page reads.
@Index('audit_log_account', ['accountId', 'id'])
export class AuditEntryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  /** The account acted on; null for an operator's action on no account. */
  @Column('text', { name: 'account_id', nullable: true })
  accountId!: string | null;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'audit_log_account_id_fkey' })
  account?: AccountEntity | null;

  /** Who acted: `account:<id>`, `member:<id>`, `key:<id>`, `operator` or `system`. */
  @Column('text')
  actor!: string;

  /** What was done, `<object>.<verb>`: `key.create`, `member.invite`, `password.reset`, `account.suspend`, … */
  @Column('text')
  action!: string;

  /** The id of what was acted on (a key, member, session or account). */
  @Column('text', { nullable: true })
  target!: string | null;

  /** A short free text: an operator's reason, a key's new scope. Never a secret or an address. */
  @Column('text', { nullable: true })
  detail!: string | null;

  @Column('text', { name: 'client_ip', nullable: true })
  clientIp!: string | null;

  @Column('text', { name: 'request_id', nullable: true })
  requestId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
