import { dashboardSuite } from './dashboard-suite';

dashboardSuite('bullmq');
