import { loginsSuite } from './logins-suite';

loginsSuite('bullmq');
