import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Metrics } from '@mailguard/metrics';

/** A request hook that counts and times every response by route, method and status. */
export function requestMetrics(metrics: Metrics) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const stop = metrics.httpDuration.startTimer();
    reply.raw.on('finish', () => {
      // The route pattern, never the raw path: one series per endpoint, not per address checked.
      const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
      const labels = { route, method: request.method, status: String(reply.raw.statusCode) };
      metrics.httpRequests.inc(labels);
      stop(labels);
    });
    done();
  };
}
