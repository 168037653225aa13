export {
  csvLine,
  looksLikeCsv,
  readCsv,
  RESULT_COLUMNS,
  resultFields,
  resultHeader,
  type CsvHead,
  type ResultColumn,
} from './csv';
export { announce, ConcludeGroupHandler, FeedHandler, feedList, startSweeps, WebhookHandler } from './handlers';
export { ListSweeps, listSweeps } from './list-sweeps';
export {
  ListStore,
  type FeedScope,
  type ListView,
  type ResultRow,
  type StoredList,
  type UploadRow,
} from './list-store';
export { checkWebhookTarget, deliverWebhook, signWebhook } from './webhook';
export {
  addDelivery,
  retryDelayMs,
  WEBHOOK_ATTEMPTS,
  WebhookOutbox,
  webhookState,
  type AttemptObserver,
  type AttemptOutcome,
  type SendReport,
  type WebhookState,
} from './webhook-outbox';
export { startWebhookSender, WebhookSender } from './webhook-sender';
