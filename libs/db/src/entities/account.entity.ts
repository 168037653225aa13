import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('accounts')
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

  @Column('integer')
  balance!: number;

  @Column('integer')
  held!: number;

  /** Signs webhooks and widget tokens, so it is kept usable (shown to the customer once). */
  @Column('text', { name: 'webhook_secret' })
  webhookSecret!: string;

  @Column('text', { name: 'signup_ip', nullable: true })
  signupIp!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
