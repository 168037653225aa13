import { retentionSuite } from './retention-suite';

retentionSuite('in-process');
