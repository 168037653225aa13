import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { ResultCache } from '@mailguard/cache';
import { CreditLedger } from '@mailguard/credits';
import { Database } from '@mailguard/db';
import { DomainKnowledge, FeedbackStore } from '@mailguard/feedback';
import { ApiKeys } from '@mailguard/keys';
import { ListStore } from '@mailguard/lists';
import { Metrics } from '@mailguard/metrics';
import type { VerificationEngine } from '@mailguard/engine';
import type { Logger } from '@mailguard/logger';
import type { ResultStore } from '@mailguard/pipeline';
import type { DailyQuota, RateLimiter } from '@mailguard/ratelimit';
import { WidgetSettingsStore } from '@mailguard/widget';
import { KeyMeter } from './auth/key-meter';

/** The job transport's tokens (QueueModule), under the names the gateway's modules know them by. */
export { CHECK_PIPELINE as PIPELINE, QUEUES } from '@mailguard/queue';

export const REDIS = Symbol('REDIS');
export const RATE_LIMITER = Symbol('RATE_LIMITER');
export const RESULT_CACHE = Symbol('RESULT_CACHE');
export const RESULT_STORE = Symbol('RESULT_STORE');
export const ENGINE = Symbol('ENGINE');
export const DAILY_QUOTA = Symbol('DAILY_QUOTA');
export const LOGGER = Symbol('LOGGER');

export interface Infrastructure {
  database: Database;
  /** null when REDIS_URL is unset (in-process mode). */
  redis: Redis | null;
  limiter: RateLimiter;
  cache: ResultCache;
  store: ResultStore;
  /** For answers that need no network (the provisional answer at a deadline). */
  engine: VerificationEngine;
  metrics: Metrics;
  keys: ApiKeys;
  meter: KeyMeter;
  ledger: CreditLedger;
  lists: ListStore;
  feedback: FeedbackStore;
  widgetSettings: WidgetSettingsStore;
  /** What the service has learned about domains' addresses (finder, domain insight). */
  knowledge: DomainKnowledge;
  /** The widget's public tier counters. */
  quota: DailyQuota;
  logger: Logger;
}

/** Connections and stores opened once in main() and shared by every module of the process. */
@Global()
@Module({})
export class InfraModule {
  static forRoot(infra: Infrastructure): DynamicModule {
    const providers = [
      { provide: Database, useValue: infra.database },
      { provide: REDIS, useValue: infra.redis },
      { provide: RATE_LIMITER, useValue: infra.limiter },
      { provide: RESULT_CACHE, useValue: infra.cache },
      { provide: RESULT_STORE, useValue: infra.store },
      { provide: ENGINE, useValue: infra.engine },
      { provide: Metrics, useValue: infra.metrics },
      { provide: ApiKeys, useValue: infra.keys },
      { provide: KeyMeter, useValue: infra.meter },
      { provide: CreditLedger, useValue: infra.ledger },
      { provide: ListStore, useValue: infra.lists },
      { provide: FeedbackStore, useValue: infra.feedback },
      { provide: WidgetSettingsStore, useValue: infra.widgetSettings },
      { provide: DomainKnowledge, useValue: infra.knowledge },
      { provide: DAILY_QUOTA, useValue: infra.quota },
      { provide: LOGGER, useValue: infra.logger },
    ];
    return { module: InfraModule, providers, exports: providers.map(({ provide }) => provide) };
  }
}
