import { EngineModule } from '@mailguard/core';
import { runWorker } from '@mailguard/worker';

/** Stage 1 of every check: syntax, domain, MX, SPF/DKIM/DMARC, domain age, lists, Gravatar. */
void runWorker('dns-worker', { queue: 'dns', concurrency: 50, imports: [EngineModule] });
