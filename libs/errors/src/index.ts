export { AppError, ERROR_STATUS, type ErrorCode } from './app-error';
