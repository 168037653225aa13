import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from './account.entity';
import { MemberEntity } from './member.entity';

export type AuthTokenKind = 'password_reset' | 'invitation';

/** A one-time link sent by mail (password reset, invitation), stored only as a hash. */
@Entity('auth_tokens')
@Check('auth_tokens_kind_check', "kind IN ('password_reset', 'invitation')")
export class AuthTokenEntity {
  @PrimaryColumn('text', { name: 'token_hash' })
  tokenHash!: string;

  @Column('text')
  kind!: AuthTokenKind;

  @Column('text', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'auth_tokens_account_id_fkey' })
  account?: AccountEntity;

  /** The member the link is for; null for the account's owner. */
  @Column('text', { name: 'member_id', nullable: true })
  memberId!: string | null;

  @ManyToOne(() => MemberEntity, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'member_id', foreignKeyConstraintName: 'auth_tokens_member_id_fkey' })
  member?: MemberEntity | null;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt!: Date;

  @Column('timestamptz', { name: 'used_at', nullable: true })
  usedAt!: Date | null;
}
