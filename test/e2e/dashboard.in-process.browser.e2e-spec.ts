import { dashboardSuite } from './dashboard-suite';

dashboardSuite('in-process');
