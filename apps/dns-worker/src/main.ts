import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { buildEngine, inspectHandler } from '@mailguard/pipeline';
import { REDIS, runWorker } from '@mailguard/worker';

/** Stage 1 of every check: syntax, domain, MX, SPF/DKIM/DMARC, domain age, lists, Gravatar. */
void runWorker('dns-worker', {
  queue: 'dns',
  concurrency: 50,
  needsDatabase: false,
  handlers: {
    inject: [APP_CONFIG, REDIS],
    useFactory: (config: AppConfig, redis: Redis) => ({ 'dns.inspect': inspectHandler(buildEngine(config, redis)) }),
  },
});
