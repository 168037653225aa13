import { usageSuite } from './usage-suite';

usageSuite('in-process');
