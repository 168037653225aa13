import { createHmac } from 'node:crypto';
import { AppError } from '@mailguard/errors';
import { RefusedAddressError, type Outbound } from '@mailguard/net';

/** `X-MailGuard-Signature`: HMAC-SHA256 of the raw body, keyed with the account's webhook secret (docs/api.md#the-list-object). */
export function signWebhook(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex')}`;
}

/** An http(s) URL without credentials. */
function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('bad_request', 'webhookUrl is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AppError('bad_request', 'webhookUrl must be http or https');
  if (url.username || url.password) throw new AppError('bad_request', 'webhookUrl must not carry credentials');
  return url;
}

/**
 * A webhook URL the service may call: http(s), and a host that resolves only to addresses the
 * outbound policy admits (public ones unless ALLOW_PRIVATE_MX). The early 400 at upload: each
 * delivery's connection is checked again, where it is made.
 */
export async function checkWebhookTarget(raw: string, outbound: Outbound): Promise<URL> {
  const url = parseWebhookUrl(raw);
  try {
    await outbound.checkHost(url);
  } catch (error) {
    if (error instanceof RefusedAddressError)
      throw new AppError('bad_request', 'webhookUrl resolves to a private, loopback or link-local address');
    throw new AppError('bad_request', `webhookUrl host ${url.hostname} does not resolve`);
  }
  return url;
}

/** How long an attempt may take (the outbox's lease outlasts it). */
const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * POSTs the signed body to the address the connection checked (never one looked up separately);
 * a redirect is not followed. Throws on anything but 2xx (the outbox retries it).
 */
export async function deliverWebhook(url: string, body: string, secret: string, outbound: Outbound): Promise<number> {
  const target = parseWebhookUrl(url);
  const response = await outbound.request(target, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'MailGuard-Webhook/1',
      'x-mailguard-signature': signWebhook(body, secret),
    },
    body,
    signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
  });
  if (response.status < 200 || response.status >= 300)
    throw new Error(`webhook ${target.origin} answered ${response.status}`);
  return response.status;
}
