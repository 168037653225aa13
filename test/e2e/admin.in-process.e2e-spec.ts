import { adminSuite } from './admin-suite';

adminSuite('in-process');
