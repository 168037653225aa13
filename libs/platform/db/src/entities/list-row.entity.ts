import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { VerificationResult } from '@mailguard/engine';
import type { Status } from '@mailguard/verdict';
import { ListEntity } from './list.entity';

/** One CSV data row of a list: the customer's fields, in order, and its result once settled. */
@Entity('list_rows')
@Index('list_rows_pending', ['listId', 'domain', 'row'], { where: 'NOT settled AND duplicate_of IS NULL' })
@Index('list_rows_waiting', ['listId', 'retryAt'], { where: 'NOT settled AND retry_at IS NOT NULL' })
@Index('list_rows_duplicates', ['listId', 'duplicateOf'], { where: 'duplicate_of IS NOT NULL' })
export class ListRowEntity {
  @PrimaryColumn('text', { name: 'list_id' })
  listId!: string;

  @ManyToOne(() => ListEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'list_id', foreignKeyConstraintName: 'list_rows_list_id_fkey' })
  list?: ListEntity;

  /** 1-based position among the data rows. */
  @PrimaryColumn('integer')
  row!: number;

  @Column('jsonb')
  fields!: string[];

  @Column('text')
  email!: string;

  /** The normalised address (duplicates share it); null when the syntax fails. */
  @Column('text', { nullable: true })
  key!: string | null;

  @Column('text', { nullable: true })
  domain!: string | null;

  /** The row of this address's first occurrence, whose result this row carries. */
  @Column('integer', { name: 'duplicate_of', nullable: true })
  duplicateOf!: number | null;

  @Column('boolean', { default: false })
  settled!: boolean;

  /** When its greylisting retry is due, while it waits for one (a delayed probe); null otherwise. */
  @Column('timestamptz', { name: 'retry_at', nullable: true })
  retryAt!: Date | null;

  @Column('text', { nullable: true })
  status!: Status | null;

  @Column('jsonb', { nullable: true })
  result!: VerificationResult | null;
}
