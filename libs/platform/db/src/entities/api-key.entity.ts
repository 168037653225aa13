import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { AccountEntity } from './account.entity';

export type KeyType = 'secret' | 'widget';
export type KeyScope = 'full' | 'verify' | 'lists' | 'read-only';

@Entity('api_keys')
@Unique('api_keys_key_hash_key', ['keyHash'])
@Index('api_keys_account', ['accountId', 'createdAt'])
@Check('api_keys_type_check', "type IN ('secret', 'widget')")
@Check('api_keys_scope_check', "scope IN ('full', 'verify', 'lists', 'read-only')")
export class ApiKeyEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'api_keys_account_id_fkey' })
  account?: AccountEntity;

  @Column('text')
  name!: string;

  @Column('text')
  type!: KeyType;

  @Column('text')
  scope!: KeyScope;

  /** The first 12 characters, for people to tell keys apart. */
  @Column('text')
  prefix!: string;

  /** SHA-256 of the key: the key itself is never stored. */
  @Column('text', { name: 'key_hash' })
  keyHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt!: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
