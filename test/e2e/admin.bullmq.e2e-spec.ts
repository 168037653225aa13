import { adminSuite } from './admin-suite';

adminSuite('bullmq');
