import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Each account's widget settings (docs/api.md endpoint #13, #14): the origins its widget keys work from and the widget's defaults. */
export class WidgetSettings1764374400000 implements MigrationInterface {
  name = 'WidgetSettings1764374400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE widget_settings (
        account_id text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
        allowed_origins jsonb NOT NULL DEFAULT '[]',
        defaults jsonb NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE widget_settings');
  }
}
