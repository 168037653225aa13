import { feedHandler, ListStore, sweepLater, webhookHandler } from '@mailguard/lists';
import { createOutbound } from '@mailguard/net';
import { buildEngine } from '@mailguard/pipeline';
import { runWorker } from '@mailguard/worker';

/**
 * Bulk lists: feeds each list's rows to the SMTP and scoring queues in groups by domain, comes back
 * for rows whose jobs were lost, and delivers the signed webhooks when lists finish.
 */
void runWorker('list-worker', {
  queue: 'lists',
  port: 3104,
  concurrency: 10,
  needsDatabase: true,
  handlers: ({ config, redis, database }) => {
    const lists = new ListStore(() => database!.dataSource);
    return { 'list.feed': feedHandler(buildEngine(config, redis), lists), 'webhook.deliver': webhookHandler(lists, createOutbound(config)) };
  },
  started: async ({ database, logger }, jobs) => {
    // A list whose feed was lost (a gateway that died between upload and queueing) starts again.
    const running = await new ListStore(() => database!.dataSource).running().catch((err: unknown) => {
      logger.warn({ err }, 'could not look for running lists');
      return [];
    });
    for (const listId of running) await sweepLater(listId, jobs, 0);
  },
});
