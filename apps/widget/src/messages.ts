import type { BlockReason, Lang } from '../../../libs/product/widget/src/languages';

export { LANGS, type BlockReason, type Lang, type MessageKind } from '../../../libs/product/widget/src/languages';

/** The built-in texts of docs/widget.md#options, per `lang`; `messages.*` options replace them. */
export const BUILT_IN: Record<Lang, Record<BlockReason, string>> = {
  en: {
    invalid: 'Please enter a valid email address',
    disposable: 'Disposable emails are not allowed',
    free: 'Please use a work email address',
  },
  it: {
    invalid: 'Inserisci un indirizzo email valido',
    disposable: 'Le email usa e getta non sono consentite',
    free: 'Usa un indirizzo email di lavoro',
  },
  es: {
    invalid: 'Introduce una dirección de correo válida',
    disposable: 'No se permiten correos desechables',
    free: 'Usa una dirección de correo del trabajo',
  },
  fr: {
    invalid: 'Veuillez saisir une adresse e-mail valide',
    disposable: 'Les adresses e-mail jetables ne sont pas autorisées',
    free: 'Veuillez utiliser une adresse e-mail professionnelle',
  },
  de: {
    invalid: 'Bitte gib eine gültige E-Mail-Adresse ein',
    disposable: 'Wegwerf-E-Mail-Adressen sind nicht erlaubt',
    free: 'Bitte verwende eine geschäftliche E-Mail-Adresse',
  },
};
