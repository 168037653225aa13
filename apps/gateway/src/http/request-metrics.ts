import type { Request, Response } from 'express';
import type { Metrics } from '@mailguard/metrics';

/** Counts and times every response by route, method and status. */
export function requestMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: () => void): void => {
    const stop = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      // The route pattern, never the raw path: one series per endpoint, not per address checked.
      const route = req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'unmatched';
      const labels = { route, method: req.method, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      stop(labels);
    });
    next();
  };
}
