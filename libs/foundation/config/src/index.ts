export * from './config';
export * from './log';
export * from './prober';
export type { UploadConfig } from './uploads';
export type { LoginConfig, MailRelayConfig } from './logins';
export { loadClientConfig, type ClientConfig } from './client';
export { ConfigError, isHostname } from './env-reader';
export { APP_CONFIG, ConfigModule } from './config.module';
export { isProviderId, PROVIDER_IDS, type ProviderId } from './providers';
