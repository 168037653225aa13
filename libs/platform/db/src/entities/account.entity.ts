import { Check, Column, CreateDateColumn, Entity, PrimaryColumn, Unique } from 'typeorm';

/** `suspended` by an operator (keys and sessions refused, lists paused); `erased` on request, ledger kept. */
export type AccountStatus = 'active' | 'suspended' | 'erased';

@Entity('accounts')
@Unique('accounts_email_key_key', ['emailKey'])
@Check('accounts_balance_check', 'balance >= 0')
@Check('accounts_held_check', 'held >= 0')
@Check('accounts_status_check', "status IN ('active', 'suspended', 'erased')")
export class AccountEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  email!: string;

  /** Lower-cased email: one account per address, whatever its case. */
  @Column('text', { name: 'email_key' })
  emailKey!: string;

  @Column('text', { nullable: true })
  name!: string | null;

  @Column('integer', { default: 0 })
  balance!: number;

  /** Credits held by lists still running (docs/api.md#credits): out of the balance, not yet charged. */
  @Column('integer', { default: 0 })
  held!: number;

  /** Signs webhooks and widget tokens, so it is kept usable (shown to the customer once). */
  @Column('text', { name: 'webhook_secret' })
  webhookSecret!: string;

  @Column('text', { name: 'signup_ip', nullable: true })
  signupIp!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Memory-hard hash of the owner's password; null for accounts that sign in with a key only. */
  @Column('text', { name: 'password_hash', nullable: true })
  passwordHash!: string | null;

  @Column('text', { default: 'active' })
  status!: AccountStatus;

  /** The operator's reason for the current status. */
  @Column('text', { name: 'status_reason', nullable: true })
  statusReason!: string | null;
}
