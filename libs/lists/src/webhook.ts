import { createHmac } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '@mailguard/errors';
import { isPublicAddress } from '@mailguard/smtp';

/** `X-MailGuard-Signature`: HMAC-SHA256 of the raw body, keyed with the account's webhook secret (API.md §4.1). */
export function signWebhook(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex')}`;
}

/**
 * A webhook URL the service may call: http(s), and a host that resolves only to public addresses
 * unless private ones are allowed (ALLOW_PRIVATE_MX) — checked at upload and again before each
 * delivery, so a name that later points inside the network is refused too.
 */
export async function checkWebhookTarget(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('bad_request', 'webhookUrl is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('bad_request', 'webhookUrl must be http or https');
  if (url.username || url.password) throw new AppError('bad_request', 'webhookUrl must not carry credentials');
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw new AppError('bad_request', `webhookUrl host ${host} does not resolve`);
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) throw new AppError('bad_request', 'webhookUrl resolves to a private, loopback or link-local address');
  return url;
}

/** Delivery attempts and how long each may take; BullMQ spaces the retries (doubling delays). */
export const WEBHOOK_ATTEMPTS = 10;
const WEBHOOK_TIMEOUT_MS = 10_000;

/** POSTs the signed body; throws on anything but 2xx so that the job is retried. */
export async function deliverWebhook(url: string, body: string, secret: string, allowPrivate: boolean): Promise<number> {
  const target = await checkWebhookTarget(url, allowPrivate);
  const response = await fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'MailGuard-Webhook/1', 'x-mailguard-signature': signWebhook(body, secret) },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
  });
  await response.arrayBuffer().catch(() => undefined);
  if (response.status < 200 || response.status >= 300) throw new Error(`webhook ${target.origin} answered ${response.status}`);
  return response.status;
}
