import { usageSuite } from './usage-suite';

usageSuite('bullmq');
