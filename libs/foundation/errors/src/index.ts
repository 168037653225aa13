export { AppError, ERROR_STATUS, type ErrorCode } from './app-error';
export { assertPlainText, isPlainText, jsonDepth, MAX_ADDRESS_INPUT, MAX_BATCH, MAX_JSON_DEPTH } from './input-policy';
