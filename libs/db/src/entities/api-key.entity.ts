import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type KeyType = 'secret' | 'widget';
export type KeyScope = 'full' | 'verify' | 'lists' | 'read-only';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text', { name: 'account_id' })
  accountId!: string;

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
