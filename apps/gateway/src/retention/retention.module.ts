import {
  Inject,
  Injectable,
  Module,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { removeEndedLogins } from '@mailguard/accounts';
import { DatabaseModule, LOGGER } from '@mailguard/core';
import { Database } from '@mailguard/db';
import type { Logger } from '@mailguard/logger';
import { compactErased, eraseExpired, scheduleSweeps, type Schedule } from '@mailguard/retention';
import { removeLeftoverStaging } from './staging-leftovers';

/**
 * RETENTION_DAYS, applied by every gateway (the one process in embedded mode, each replica when
 * distributed: their sweeps share the work, see eraseExpired) from its start to its shutdown, every
 * RETENTION_SWEEP_SECONDS: the database's addresses past retention (and, in embedded mode, what
 * its files kept of them), staging left on this host by gateways that stopped mid-upload, and ended
 * sessions and used or expired one-time links.
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
    const source = this.database.dataSource;
    const erased = await eraseExpired(source, this.config.retention.days);
    // The embedded data folder is this service's own: nothing erased stays in its files.
    const compacted = this.database.mode === 'embedded' ? await compactErased(source, erased) : [];
    const stagingFolders = await removeLeftoverStaging();
    const logins = await removeEndedLogins(source);
    this.logger.info({ retention: { ...erased, compacted, stagingFolders, logins } }, 'retention sweep done');
  }

  /** Before the database closes: a sweep under way ends first. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.schedule?.stop();
  }
}

@Module({ imports: [DatabaseModule], providers: [RetentionSweeps] })
export class RetentionModule {}
