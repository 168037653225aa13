import type { Lang } from './messages';
import type { WidgetResult } from './status';

/** Defaults of the account's widget settings (docs/api.md endpoint #13), sent back with keyed answers. */
export interface AccountDefaults {
  blockDisposable?: boolean;
  blockFree?: boolean;
  lang?: Lang;
  messages?: Record<string, string>;
}

export type Answer =
  | { ok: true; result: WidgetResult; token: string | null; defaults: AccountDefaults | null }
  /** Limited, refused, down or slow: the page is never blocked for it (docs/widget.md). */
  | { ok: false; error: string };

const TIMEOUT_MS = 10_000;
const DEVICE_KEY = 'mailguard.deviceId';
let memoryDevice: string | null = null;

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Kept in localStorage so the public tier counts this browser; private modes fall back to memory. */
export function deviceId(): string {
  try {
    let id = localStorage.getItem(DEVICE_KEY);
    if (!id) {
      id = randomId();
      localStorage.setItem(DEVICE_KEY, id);
    }
    return id;
  } catch {
    return (memoryDevice ??= randomId());
  }
}

function decodeDefaults(header: string | null): AccountDefaults | null {
  if (!header) return null;
  try {
    const bytes = Uint8Array.from(atob(header.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes)) as AccountDefaults;
  } catch {
    return null;
  }
}

export async function verify(apiUrl: string, apiKey: string | undefined, email: string): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  try {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (apiKey) headers['X-API-Key'] = apiKey;
    const response = await fetch(`${apiUrl}/v1/widget/verify`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email, deviceId: deviceId() }),
      credentials: 'omit',
      signal: controller.signal,
    });
    const body = (await response.json().catch(() => ({}))) as WidgetResult & { error?: string };
    if (!response.ok) return { ok: false, error: body.error ?? `HTTP ${response.status}` };
    return {
      ok: true,
      result: body,
      token: response.headers.get('X-Guard-Token'),
      defaults: decodeDefaults(response.headers.get('X-Guard-Settings')),
    };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
