import type { DataSource } from 'typeorm';
import { WidgetSettingsEntity } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import { LANGS, MESSAGE_KINDS, type Lang, type MessageKind } from './languages';

/** The account-wide defaults the widget applies unless `Guard.init` sets them (docs/api.md endpoint #13). */
export interface WidgetDefaults {
  blockDisposable: boolean;
  blockFree: boolean;
  lang: Lang;
  messages: Partial<Record<MessageKind, string>>;
}

export interface WidgetSettings {
  /** Origins widget keys work from; empty = any origin (docs/widget.md). */
  allowedOrigins: string[];
  defaults: WidgetDefaults;
}

export const BUILT_IN_DEFAULTS: WidgetDefaults = { blockDisposable: true, blockFree: false, lang: 'en', messages: {} };
const MAX_ORIGINS = 100;
const MAX_MESSAGE = 200;

/** `https://shop.example.com` from what a customer may type (a trailing slash, upper case); null when it is no web origin. */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    return null;
  return url.origin;
}

function fail(message: string): never {
  throw new AppError('bad_request', message);
}

/** Validates a PUT body's `allowedOrigins`. */
export function parseOrigins(input: unknown): string[] {
  if (!Array.isArray(input)) fail('allowedOrigins must be an array of origins such as "https://shop.example.com"');
  if (input.length > MAX_ORIGINS) fail(`allowedOrigins may hold at most ${MAX_ORIGINS} origins`);
  const origins = input.map((entry) => {
    const origin = typeof entry === 'string' ? normalizeOrigin(entry) : null;
    if (!origin)
      fail(
        `allowedOrigins: ${JSON.stringify(entry)} is not an origin (scheme, host and port only, e.g. "https://shop.example.com")`,
      );
    return origin;
  });
  return [...new Set(origins)];
}

/** Validates a PUT body's `defaults`; fields left out take the built-in values. */
export function parseDefaults(input: unknown): WidgetDefaults {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('defaults must be an object');
  const { blockDisposable, blockFree, lang, messages, ...rest } = input as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    fail(`defaults: unknown field ${unknown[0]} (allowed: blockDisposable, blockFree, lang, messages)`);
  for (const [name, value] of Object.entries({ blockDisposable, blockFree })) {
    if (value !== undefined && typeof value !== 'boolean') fail(`defaults.${name} must be true or false`);
  }
  if (lang !== undefined && !LANGS.includes(lang as Lang)) fail(`defaults.lang must be one of ${LANGS.join(', ')}`);
  const texts: Partial<Record<MessageKind, string>> = {};
  if (messages !== undefined) {
    if (typeof messages !== 'object' || messages === null || Array.isArray(messages))
      fail('defaults.messages must be an object');
    for (const [kind, text] of Object.entries(messages)) {
      if (!MESSAGE_KINDS.includes(kind as MessageKind))
        fail(`defaults.messages: unknown message ${kind} (allowed: ${MESSAGE_KINDS.join(', ')})`);
      if (typeof text !== 'string' || text.length > MAX_MESSAGE)
        fail(`defaults.messages.${kind} must be a string of at most ${MAX_MESSAGE} characters`);
      texts[kind as MessageKind] = text;
    }
  }
  return {
    blockDisposable: (blockDisposable as boolean | undefined) ?? BUILT_IN_DEFAULTS.blockDisposable,
    blockFree: (blockFree as boolean | undefined) ?? BUILT_IN_DEFAULTS.blockFree,
    lang: (lang as Lang | undefined) ?? BUILT_IN_DEFAULTS.lang,
    messages: texts,
  };
}

/** Per-account widget settings (table `widget_settings`); an account without a row has the built-ins. */
export class WidgetSettingsStore {
  constructor(private readonly dataSource: () => DataSource) {}

  async get(accountId: string): Promise<WidgetSettings> {
    const row = await this.dataSource().getRepository(WidgetSettingsEntity).findOneBy({ accountId });
    if (!row) return { allowedOrigins: [], defaults: BUILT_IN_DEFAULTS };
    // Written only by put(), from parseDefaults: the fields of WidgetDefaults.
    return {
      allowedOrigins: row.allowedOrigins,
      defaults: { ...BUILT_IN_DEFAULTS, ...(row.defaults as Partial<WidgetDefaults>) },
    };
  }

  /** What is given replaces what is stored; what is left out stays. */
  async put(accountId: string, change: Partial<WidgetSettings>): Promise<WidgetSettings> {
    const current = await this.get(accountId);
    const next: WidgetSettings = {
      allowedOrigins: change.allowedOrigins ?? current.allowedOrigins,
      defaults: change.defaults ?? current.defaults,
    };
    await this.dataSource()
      .createQueryBuilder()
      .insert()
      .into(WidgetSettingsEntity)
      .values({ accountId, allowedOrigins: next.allowedOrigins, defaults: { ...next.defaults } })
      .orUpdate(['allowed_origins', 'defaults', 'updated_at'], ['account_id'])
      .execute();
    return next;
  }
}
