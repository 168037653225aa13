import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { AccountEntity } from './account.entity';
import { MemberEntity } from './member.entity';

/** A signed-in browser: the cookie's token is stored only as a hash. Ended sessions are deleted. */
@Entity('sessions')
@Unique('sessions_token_hash_key', ['tokenHash'])
@Index('sessions_account', ['accountId'])
export class SessionEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text', { name: 'token_hash' })
  tokenHash!: string;

  @Column('text', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'sessions_account_id_fkey' })
  account?: AccountEntity;

  /** Null for the account's owner. */
  @Column('text', { name: 'member_id', nullable: true })
  memberId!: string | null;

  @ManyToOne(() => MemberEntity, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'member_id', foreignKeyConstraintName: 'sessions_member_id_fkey' })
  member?: MemberEntity | null;

  /** The browser's User-Agent, as people recognise their devices by it. */
  @Column('text', { nullable: true })
  device!: string | null;

  @Column('text', { name: 'client_ip', nullable: true })
  clientIp!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'last_seen_at', default: () => 'now()' })
  lastSeenAt!: Date;

  /** The absolute end (30 days after sign-in); the idle end is `lastSeenAt` + 7 days. */
  @Column('timestamptz', { name: 'expires_at' })
  expiresAt!: Date;
}
