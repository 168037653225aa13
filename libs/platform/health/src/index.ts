export { HealthModule, type HealthTargetsAsync } from './health.module';
export { HEALTH_TARGETS, HealthChecks, ShuttingDownError, type HealthTargets, type Readiness } from './health-checks';
export { PostgresHealthIndicator, QueueHealthIndicator, RedisHealthIndicator, type QueueProbe } from './indicators';
