import { ENGINE, EngineModule, OUTBOUND, StoresModule } from '@mailguard/core';
import type { VerificationEngine } from '@mailguard/engine';
import { feedHandler, ListStore, listSweeps, webhookHandler } from '@mailguard/lists';
import type { Outbound } from '@mailguard/net';
import { runWorker } from '@mailguard/worker';

/**
 * Bulk lists: feeds each list's rows to the SMTP and scoring queues in groups by domain, comes back
 * for rows whose jobs were lost, and delivers the signed webhooks when lists finish.
 */
void runWorker('list-worker', {
  queue: 'lists',
  concurrency: 10,
  imports: [EngineModule, StoresModule],
  handlers: {
    inject: [ENGINE, ListStore, OUTBOUND],
    useFactory: (engine: VerificationEngine, lists: ListStore, outbound: Outbound) => ({
      'list.feed': feedHandler(engine, lists),
      'webhook.deliver': webhookHandler(lists, outbound),
    }),
  },
  // Running lists are fed at start (a gateway may have died between upload and queueing) and every minute.
  providers: listSweeps({ jobsLost: false }),
});
