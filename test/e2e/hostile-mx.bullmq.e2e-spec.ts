import { hostileMxSuite } from './hostile-mx-suite';

hostileMxSuite('bullmq');
