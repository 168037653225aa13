import type { NextFunction, Request, Response } from 'express';

/**
 * The widget's routes are called from customers' pages (docs/widget.md): their answers may be loaded
 * cross-origin, and without a key any origin may read them — errors included, so that the widget
 * can tell "limited" from "down". With a key the origin is allowed only after the account's
 * settings are checked (WidgetService).
 */
export function widgetCors(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  if (!req.header('x-api-key')) res.setHeader('Access-Control-Allow-Origin', '*');
  next();
}
