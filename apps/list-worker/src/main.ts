import { EngineModule, StoresModule, WebhooksModule } from '@mailguard/core';
import { listSweeps } from '@mailguard/lists';
import { runWorker } from '@mailguard/worker';

/**
 * Bulk lists: feeds each list's rows to the SMTP and scoring queues in groups by domain, comes back
 * for rows whose jobs were lost, and sends the signed webhooks of finished lists (the outbox's
 * first attempts and retries).
 */
void runWorker('list-worker', {
  queue: 'lists',
  concurrency: 10,
  imports: [EngineModule, StoresModule, WebhooksModule],
  // Running lists are fed at start (a gateway may have died between upload and queueing) and every minute.
  providers: listSweeps({ jobsLost: false }),
});
