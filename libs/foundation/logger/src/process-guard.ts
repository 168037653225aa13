import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';

/** The request a piece of work belongs to, so that a failure nobody awaited still names it. */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/**
 * The last resort of every process: an unhandled rejection or uncaught exception is logged (with
 * the request it came from, when known) and the process goes on serving. Failures are handled
 * where they start; this only keeps one forgotten promise from ending the whole service.
 */
export function surviveUnhandled(logger: Logger): void {
  process.on('unhandledRejection', (reason: unknown) => {
    logger.error(
      { err: reason, requestId: requestContext.getStore()?.requestId },
      'unhandled rejection (the process goes on)',
    );
  });
  process.on('uncaughtException', (error: Error) => {
    logger.error(
      { err: error, requestId: requestContext.getStore()?.requestId },
      'uncaught exception (the process goes on)',
    );
  });
}
