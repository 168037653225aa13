import { retentionSuite } from './retention-suite';

retentionSuite('bullmq');
