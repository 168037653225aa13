import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ListEntity } from './list.entity';

/**
 * A feed's checkpoint at one domain of a list: its rows up to `through` are dispatched (a feed sends a
 * domain's rows in row order), the last of them at `at`.
 */
@Entity('list_feed_marks')
export class ListFeedMarkEntity {
  @PrimaryColumn('text', { name: 'list_id', primaryKeyConstraintName: 'list_feed_marks_pkey' })
  listId!: string;

  @ManyToOne(() => ListEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'list_id', foreignKeyConstraintName: 'list_feed_marks_list_id_fkey' })
  list?: ListEntity;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'list_feed_marks_pkey' })
  domain!: string;

  @Column('integer')
  through!: number;

  @Column('timestamptz', { default: () => 'now()' })
  at!: Date;
}
