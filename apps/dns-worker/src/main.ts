import { buildEngine } from '@mailguard/core';
import { inspectHandler } from '@mailguard/pipeline';
import { runWorker } from '@mailguard/worker';

/** Stage 1 of every check: syntax, domain, MX, SPF/DKIM/DMARC, domain age, lists, Gravatar. */
void runWorker('dns-worker', {
  queue: 'dns',
  concurrency: 50,
  needsDatabase: false,
  handlers: ({ config, redis }) => ({ 'dns.inspect': inspectHandler(buildEngine(config, redis)) }),
});
