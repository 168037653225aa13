import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/** An account's widget settings (docs/api.md endpoint #13, #14); an account without a row has the built-ins. */
@Entity('widget_settings')
export class WidgetSettingsEntity {
  @PrimaryColumn('text', { name: 'account_id' })
  accountId!: string;

  @OneToOne(() => AccountEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'widget_settings_account_id_fkey' })
  account?: AccountEntity;

  /** Origins widget keys work from; empty = any origin. */
  @Column('jsonb', { name: 'allowed_origins', default: () => "'[]'" })
  allowedOrigins!: string[];

  /** The widget defaults the account set (the built-ins fill what is left out). */
  @Column('jsonb', { default: () => "'{}'" })
  defaults!: Record<string, unknown>;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
