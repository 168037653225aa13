export { readCsv, MAX_ROWS, type CsvHead } from './csv';
export { announce, concludeGroupHandler, feedHandler, GROUP_SIZE, probeGroupHandler, sweepLater, webhookHandler, type ListOptions } from './handlers';
export { ListStore, type ListView, type ResultRow, type StoredList, type UploadRow } from './list-store';
export { checkWebhookTarget, deliverWebhook, signWebhook } from './webhook';
