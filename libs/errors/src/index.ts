export { AppError, ERROR_STATUS, type ErrorCode } from './app-error';
export { assertPlainText, isPlainText, jsonDepth, MAX_JSON_DEPTH } from './input-policy';
