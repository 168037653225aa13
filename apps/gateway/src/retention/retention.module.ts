import {
  Inject,
  Injectable,
  Module,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { DatabaseModule, LOGGER } from '@mailguard/core';
import { Database } from '@mailguard/db';
import type { Logger } from '@mailguard/logger';
import { eraseExpired, scheduleSweeps, type Schedule } from '@mailguard/retention';
import { removeLeftoverStaging } from './staging-leftovers';

/**
 * RETENTION_DAYS, applied by every gateway (the one process in embedded mode, each replica when
 * distributed: their sweeps share the work, see eraseExpired) from its start to its shutdown, every
 * RETENTION_SWEEP_SECONDS: the database's addresses past retention, and staging left on this host
 * by gateways that stopped mid-upload.
 */
@Injectable()
export class RetentionSweeps implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private schedule: Schedule | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: Database,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule = scheduleSweeps(
      () => this.sweep(),
      this.config.retention.sweepSeconds * 1000,
      (err) => this.logger.warn({ err }, 'retention sweep failed; trying again at the next one'),
    );
  }

  private async sweep(): Promise<void> {
    const erased = await eraseExpired(this.database.dataSource, this.config.retention.days);
    const stagingFolders = await removeLeftoverStaging();
    this.logger.info({ retention: { ...erased, stagingFolders } }, 'retention sweep done');
  }

  /** Before the database closes: a sweep under way ends first. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.schedule?.stop();
  }
}

@Module({ imports: [DatabaseModule], providers: [RetentionSweeps] })
export class RetentionModule {}
