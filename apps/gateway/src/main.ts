import 'reflect-metadata';
import { ConfigError, loadConfig } from '@mailguard/config';
import { createLogger, surviveUnhandled } from '@mailguard/logger';
import { startGateway } from './gateway';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mailguard gateway: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.log, 'gateway');
  surviveUnhandled(logger);
  const gateway = await startGateway(config, logger);
  const urls = {
    url: gateway.url,
    api: `${gateway.url}/v1`,
    docs: `${gateway.url}/docs`,
    dashboard: `${gateway.url}/dashboard/`,
    metrics: gateway.metricsUrl,
    // Bull Board is mounted only with queues to show (REDIS_URL) and a credential for it (ADMIN_TOKEN).
    queues: config.redis.url && config.admin.token ? `${gateway.url}/admin/queues` : null,
  };
  logger.info(
    {
      ...urls,
      database: config.database.url ? 'postgres' : 'embedded',
      redis: config.redis.url ? 'redis' : 'in-process',
    },
    'gateway listening',
  );
  process.stdout.write(
    `MailGuard gateway listening on ${urls.url} (API: ${urls.api}, docs: ${urls.docs}, dashboard: ${urls.dashboard}, ` +
      `health: ${urls.url}/health/ready)` +
      (urls.queues ? `; queue board: ${urls.queues}` : '') +
      `; metrics on ${urls.metrics}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `mailguard gateway: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
