import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogConfig } from '@mailguard/config';
import { LogPrivacy } from './privacy';

/**
 * One structured JSON logger per process; `service` names the deployable in every line. Every line
 * passes LogPrivacy on its way out (addresses hashed, credentials redacted), whoever wrote it.
 */
export function createLogger(config: LogConfig, service: string, destination?: DestinationStream): Logger {
  const privacy = new LogPrivacy(config);
  const options: pino.LoggerOptions = {
    level: config.level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
      censor: '[redacted]',
    },
    hooks: { streamWrite: (line) => privacy.line(line) },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Routes Nest's own log calls (bootstrap, route mapping) into the same JSON stream. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }

  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }

  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
