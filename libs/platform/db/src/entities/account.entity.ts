import { Check, Column, CreateDateColumn, Entity, PrimaryColumn, Unique } from 'typeorm';

@Entity('accounts')
@Unique('accounts_email_key_key', ['emailKey'])
@Check('accounts_balance_check', 'balance >= 0')
@Check('accounts_held_check', 'held >= 0')
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
}
