import { webhooksSuite } from './webhooks-suite';

webhooksSuite('bullmq');
