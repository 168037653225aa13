import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/**
 * The rows one list settled on one UTC day: the `checks` of its usage (docs/api.md#usage). No
 * foreign key to the list: its usage stays when the list and its rows are deleted.
 */
@Entity('list_usage')
@Index('list_usage_account', ['accountId', 'day'])
export class ListUsageEntity {
  @PrimaryColumn('text', { name: 'list_id' })
  listId!: string;

  /** The UTC day, `YYYY-MM-DD`. */
  @PrimaryColumn('date')
  day!: string;

  @Column('text', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'list_usage_account_id_fkey' })
  account?: AccountEntity;

  @Column('integer')
  checks!: number;
}
