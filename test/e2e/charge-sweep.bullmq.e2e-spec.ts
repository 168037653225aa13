import { chargeSweepSuite } from './charge-sweep-suite';

chargeSweepSuite('bullmq');
