import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/** The widget's routes (docs/widget.md), which customers' pages call. */
const WIDGET_PREFIX = '/v1/widget/';

/**
 * A request hook for the widget's routes, which are called from customers' pages (docs/widget.md): their answers may be loaded
 * cross-origin, and without a key any origin may read them — errors included, so that the widget
 * can tell "limited" from "down". With a key the origin is allowed only after the account's
 * settings are checked (WidgetService).
 */
export function widgetCors(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.url.startsWith(WIDGET_PREFIX)) {
    reply.raw.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    if (!request.headers['x-api-key']) reply.raw.setHeader('Access-Control-Allow-Origin', '*');
  }
  done();
}
