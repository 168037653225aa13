import { egressSuite } from './egress-suite';

egressSuite('in-process');
