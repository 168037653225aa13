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
  logger.info(
    {
      url: gateway.url,
      metrics: gateway.metricsUrl,
      database: config.database.url ? 'postgres' : 'embedded',
      redis: config.redis.url ? 'redis' : 'in-process',
    },
    'gateway listening',
  );
  process.stdout.write(
    `MailGuard gateway listening on ${gateway.url} (health: ${gateway.url}/health/ready, API: ${gateway.url}/v1); ` +
      `metrics on ${gateway.metricsUrl}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `mailguard gateway: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
