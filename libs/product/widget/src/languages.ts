/**
 * The widget's languages and message kinds (docs/widget.md#options), shared by the browser SDK and the
 * settings the gateway validates. Free of Node and DOM imports, so both sides can bundle it.
 */
export const LANGS = ['en', 'it', 'es', 'fr', 'de'] as const;
export type Lang = (typeof LANGS)[number];

export const MESSAGE_KINDS = ['invalid', 'disposable', 'free', 'valid', 'warning'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];
export type BlockReason = 'invalid' | 'disposable' | 'free';
