import { logPrivacySuite } from './log-privacy-suite';

logPrivacySuite('in-process');
