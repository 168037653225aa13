import { chargeSweepSuite } from './charge-sweep-suite';

chargeSweepSuite('in-process');
