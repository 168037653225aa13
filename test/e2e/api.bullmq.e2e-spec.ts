import { apiSuite } from './api-suite';

apiSuite('bullmq');
