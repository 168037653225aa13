export { createLogger, PinoNestLogger } from './logger';
export type { Logger } from 'pino';
