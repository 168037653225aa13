import { Inject, Module, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import type { Logger } from '@mailguard/logger';
import { Metrics } from '@mailguard/metrics';
import { createOutbound, type Outbound } from '@mailguard/net';
import type { VerificationEngine } from '@mailguard/engine';
import type { EgressPool, SessionGate } from '@mailguard/smtp';
import { MetricsModule } from './metrics.module';
import { RedisModule } from './redis.module';
import { buildEgressPool, buildEngine, buildGate, superviseGate } from './engine';
import { EGRESS, GATE, ENGINE, LOGGER, OUTBOUND, REDIS } from './tokens';

/**
 * The verification engine with its per-MX gate (supervised: gauges and expired-lease warnings), its
 * kept SMTP sessions (gauges) and outbound HTTP.
 */
@Module({
  imports: [RedisModule, MetricsModule],
  providers: [
    { provide: OUTBOUND, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createOutbound(config) },
    {
      provide: GATE,
      inject: [APP_CONFIG, REDIS, Metrics, LOGGER],
      useFactory: (config: AppConfig, redis: Redis | null, metrics: Metrics, logger: Logger) => {
        const gate = buildGate(config, redis);
        superviseGate(gate, metrics, logger);
        return gate;
      },
    },
    {
      provide: EGRESS,
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: Redis | null) => buildEgressPool(config, redis),
    },
    {
      provide: ENGINE,
      inject: [APP_CONFIG, REDIS, GATE, OUTBOUND, EGRESS, Metrics],
      useFactory: (
        config: AppConfig,
        redis: Redis | null,
        gate: SessionGate,
        outbound: Outbound,
        egress: EgressPool,
        metrics: Metrics,
      ) => {
        const engine = buildEngine(config, redis, gate, outbound, egress);
        metrics.watchKeptSessions(engine.keptSessions);
        return engine;
      },
    },
  ],
  exports: [OUTBOUND, GATE, EGRESS, ENGINE],
})
export class EngineModule implements BeforeApplicationShutdown {
  constructor(@Inject(ENGINE) private readonly engine: VerificationEngine) {}

  /**
   * Sessions kept open for the next probe say goodbye (one a job in flight ends after this is not
   * kept), and the egresses' blocks are no longer refreshed.
   */
  beforeApplicationShutdown(): void {
    this.engine.closeSessions();
    this.engine.egress.close();
  }
}
