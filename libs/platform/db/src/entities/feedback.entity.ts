import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

export type FeedbackOutcome = 'delivered' | 'bounced';

/** A customer's report of what became of mail to an address (docs/api.md endpoint #3). */
@Entity('feedback')
@Index('feedback_account_key', ['accountId', 'key'])
@Index('feedback_domain', ['domain', 'createdAt'])
@Index('feedback_created', ['createdAt'])
@Check('feedback_outcome_check', "outcome IN ('delivered', 'bounced')")
export class FeedbackEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column('text', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'feedback_account_id_fkey' })
  account?: AccountEntity;

  @Column('text')
  email!: string;

  /** The normalised address (the result cache's key). */
  @Column('text')
  key!: string;

  /** A-label domain and lower-cased local part: what the catch-all model learns by. */
  @Column('text')
  domain!: string;

  @Column('text', { name: 'local_part' })
  localPart!: string;

  @Column('text')
  outcome!: FeedbackOutcome;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
