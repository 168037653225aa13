export { createLogger, PinoNestLogger } from './logger';
export { LogPrivacy, SECRET_PARAMETER } from './privacy';
export type { Logger } from 'pino';
export { requestContext, surviveUnhandled } from './process-guard';
