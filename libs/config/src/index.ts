export * from './config';
export { ConfigError, isHostname } from './env-reader';
export { APP_CONFIG, ConfigModule } from './config.module';
