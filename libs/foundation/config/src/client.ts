import { ConfigError, EnvReader } from './env-reader';

/** What the command line reads to use a running service instead of the engine in its own process. */
export interface ClientConfig {
  /** `MAILGUARD_API_URL`: the service `mailguard mcp` relays to; null runs the engine in-process. */
  apiUrl: string | null;
  /** `MAILGUARD_API_KEY`: the secret key sent as `X-API-Key`. */
  apiKey: string | null;
  /** `ADMIN_TOKEN`: the operators' credential `mailguard admin` sends to the service at `apiUrl`. */
  adminToken: string | null;
}

/** Reads the CLI's own variables (not the service's, docs/configuration.md); throws ConfigError naming each bad one. */
export function loadClientConfig(env: Record<string, string | undefined> = process.env): ClientConfig {
  const read = new EnvReader(env);
  const url = read.url('MAILGUARD_API_URL', ['http:', 'https:'], null);
  const config = {
    apiUrl: url ? url.toString() : null,
    apiKey: read.string('MAILGUARD_API_KEY', null),
    adminToken: read.string('ADMIN_TOKEN', null),
  };
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}
