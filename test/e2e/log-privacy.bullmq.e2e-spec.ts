import { logPrivacySuite } from './log-privacy-suite';

logPrivacySuite('bullmq');
