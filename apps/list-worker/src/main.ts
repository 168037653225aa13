import { feedHandler, ListStore, startSweeps, webhookHandler } from '@mailguard/lists';
import { createOutbound } from '@mailguard/net';
import { buildEngine } from '@mailguard/core';
import { runWorker } from '@mailguard/worker';

/**
 * Bulk lists: feeds each list's rows to the SMTP and scoring queues in groups by domain, comes back
 * for rows whose jobs were lost, and delivers the signed webhooks when lists finish.
 */
void runWorker('list-worker', {
  queue: 'lists',
  concurrency: 10,
  needsDatabase: true,
  handlers: ({ config, redis, database }) => {
    const lists = new ListStore(() => database!.dataSource);
    return { 'list.feed': feedHandler(buildEngine(config, redis), lists), 'webhook.deliver': webhookHandler(lists, createOutbound(config)) };
  },
  started: async ({ database, logger }, jobs) => {
    // Running lists are fed at start (a gateway may have died between upload and queueing) and every minute.
    startSweeps(new ListStore(() => database!.dataSource), jobs, {
      jobsLost: false,
      onError: (err) => logger.warn({ err }, 'could not sweep the running lists; trying again at the next sweep'),
    });
  },
});
