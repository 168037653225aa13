export { signGuardToken, verifyGuardToken, type GuardTokenClaims } from './guard-token';
export { LANGS, MESSAGE_KINDS, type BlockReason, type Lang, type MessageKind } from './languages';
export {
  BUILT_IN_DEFAULTS,
  normalizeOrigin,
  parseDefaults,
  parseOrigins,
  WidgetSettingsStore,
  type WidgetDefaults,
  type WidgetSettings,
} from './settings';
