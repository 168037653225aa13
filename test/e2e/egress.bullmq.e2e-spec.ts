import { egressSuite } from './egress-suite';

egressSuite('bullmq');
