import { hostileMxSuite } from './hostile-mx-suite';

hostileMxSuite('in-process');
