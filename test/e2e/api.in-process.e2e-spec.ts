import { apiSuite } from './api-suite';

apiSuite('in-process');
