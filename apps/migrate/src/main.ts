import { ConfigError, loadConfig } from '@mailguard/config';
import { createDataSource, runMigrations } from '@mailguard/db';

/**
 * The release step of Kubernetes' migration Job: applies pending migrations to DATABASE_URL and exits 0,
 * or exits 1 with the reason (the processes migrate at start too; this makes it one step that can fail a release).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.database.url)
    throw new ConfigError(['DATABASE_URL is required: migrations run against a Postgres server']);
  const source = createDataSource({ url: config.database.url, poolSize: 1, sharedSession: false });
  await source.initialize();
  try {
    await runMigrations(source);
  } finally {
    await source.destroy();
  }
  process.stdout.write('mailguard migrate: schema up to date\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`mailguard migrate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
