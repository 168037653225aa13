import { loginsSuite } from './logins-suite';

loginsSuite('in-process');
