import { webhooksSuite } from './webhooks-suite';

webhooksSuite('in-process');
