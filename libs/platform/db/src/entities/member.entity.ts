import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { AccountEntity } from './account.entity';

/** What a member may do; the owner has every right. */
export type MemberRole = 'admin' | 'developer' | 'billing';

/** A person invited to share an account; signs in with their own email and password once accepted. */
@Entity('members')
@Unique('members_email_key_key', ['emailKey'])
@Index('members_account', ['accountId'])
@Check('members_role_check', "role IN ('admin', 'developer', 'billing')")
export class MemberEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'members_account_id_fkey' })
  account?: AccountEntity;

  @Column('text')
  email!: string;

  /** Lower-cased email: one login per address across the service. */
  @Column('text', { name: 'email_key' })
  emailKey!: string;

  @Column('text')
  role!: MemberRole;

  /** Null until the invitation is accepted. */
  @Column('text', { name: 'password_hash', nullable: true })
  passwordHash!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'accepted_at', nullable: true })
  acceptedAt!: Date | null;
}
