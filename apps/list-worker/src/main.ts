import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { Database } from '@mailguard/db';
import { feedHandler, ListStore, listSweeps, webhookHandler } from '@mailguard/lists';
import { createOutbound } from '@mailguard/net';
import { buildEngine } from '@mailguard/pipeline';
import { REDIS, runWorker } from '@mailguard/worker';

/**
 * Bulk lists: feeds each list's rows to the SMTP and scoring queues in groups by domain, comes back
 * for rows whose jobs were lost, and delivers the signed webhooks when lists finish.
 */
void runWorker('list-worker', {
  queue: 'lists',
  concurrency: 10,
  needsDatabase: true,
  handlers: {
    inject: [APP_CONFIG, REDIS, ListStore],
    useFactory: (config: AppConfig, redis: Redis, lists: ListStore) => ({
      'list.feed': feedHandler(buildEngine(config, redis), lists),
      'webhook.deliver': webhookHandler(lists, createOutbound(config)),
    }),
  },
  providers: [
    { provide: ListStore, inject: [Database], useFactory: (database: Database) => new ListStore(() => database.dataSource) },
    // Running lists are fed at start (a gateway may have died between upload and queueing) and every minute.
    ...listSweeps({ jobsLost: false }),
  ],
});
