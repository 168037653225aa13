import { AccountsKeysCredits1764115200000 } from './1764115200000-accounts-keys-credits';
import { Lists1764201600000 } from './1764201600000-lists';
import { Feedback1764288000000 } from './1764288000000-feedback';
import { WidgetSettings1764374400000 } from './1764374400000-widget-settings';
import { DomainEvidence1764460800000 } from './1764460800000-domain-evidence';
import { WebhookOutbox1764547200000 } from './1764547200000-webhook-outbox';
import { Retention1764633600000 } from './1764633600000-retention';
import { OpenCharges1764720000000 } from './1764720000000-open-charges';
import { LoginsOperators1764806400000 } from './1764806400000-logins-operators';
import { ListUsage1764892800000 } from './1764892800000-list-usage';
import { PausedLists1765065600000 } from './1765065600000-paused-lists';
import { GreylistWaits1765152000000 } from './1765152000000-greylist-waits';
import { DomainQueries1765238400000 } from './1765238400000-domain-queries';
import { ListRowsWaiting1765324800000 } from './1765324800000-list-rows-waiting';
import { ListFeedMarks1765500000001 } from './1765500000001-list-feed-marks';
import { ListFeedMarksByDomain1765600000000 } from './1765600000000-list-feed-marks-by-domain';

/**
 * Every schema change, in order. The service never uses `synchronize`: each change is a migration
 * class added here.
 */
export const MIGRATIONS: Function[] = [
  AccountsKeysCredits1764115200000,
  Lists1764201600000,
  Feedback1764288000000,
  WidgetSettings1764374400000,
  DomainEvidence1764460800000,
  WebhookOutbox1764547200000,
  Retention1764633600000,
  OpenCharges1764720000000,
  LoginsOperators1764806400000,
  ListUsage1764892800000,
  PausedLists1765065600000,
  GreylistWaits1765152000000,
  DomainQueries1765238400000,
  ListRowsWaiting1765324800000,
  ListFeedMarks1765500000001,
  ListFeedMarksByDomain1765600000000,
];
