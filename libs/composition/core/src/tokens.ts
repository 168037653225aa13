/**
 * Injection tokens of the shared composition (CoreModule, EngineModule). Classes are their own
 * tokens (Database, Metrics, the stores); these name what has no class of its own or several.
 * ENGINE and RESULT_CACHE are declared by their libraries: the stage handlers of libs/product/pipeline and
 * libs/product/lists inject them, and this library imports those.
 */
export { RESULT_CACHE } from '@mailguard/cache';
export { ENGINE } from '@mailguard/engine';

/** The process's pino logger (`Logger` of @mailguard/logger). */
export const LOGGER = Symbol('LOGGER');
/** Which process this is ("gateway", "dns-worker"…): the `service` label of its metrics. */
export const PROCESS_NAME = Symbol('PROCESS_NAME');
/** The ioredis client, connected (or trying to); null without REDIS_URL. */
export const REDIS = Symbol('REDIS');
/** The per-MX session gate (`SessionGate`): shared through Redis when configured. */
export const GATE = Symbol('GATE');
/** Outbound HTTP under the address policy (`Outbound`): webhooks, lookups. */
export const OUTBOUND = Symbol('OUTBOUND');
/** The prober's egresses and their blocks (`EgressPool`): shared through Redis when configured. */
export const EGRESS = Symbol('EGRESS');
/** The prober's self-check and readiness (`ProberMonitor`). */
export const PROBER = Symbol('PROBER');
