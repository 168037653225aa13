export { createLogger, PinoNestLogger } from './logger';
export type { Logger } from 'pino';
export { requestContext, surviveUnhandled } from './process-guard';
