import type { FactoryProvider } from '@nestjs/common';
import { ENGINE, LOGGER } from '@mailguard/core';
import { CreditLedger } from '@mailguard/credits';
import { Database } from '@mailguard/db';
import type { VerificationEngine } from '@mailguard/engine';
import type { Logger } from '@mailguard/logger';
import { Metrics } from '@mailguard/metrics';
import { ChargeSweep, ResultStore } from '@mailguard/pipeline';

/**
 * The charge sweep of every gateway, in both modes (the gateway is what always runs where charges
 * are taken): counted and logged, as a warning when it refunds (an answer was lost).
 */
export const chargeSweep: FactoryProvider<ChargeSweep> = {
  provide: ChargeSweep,
  inject: [Database, CreditLedger, ResultStore, ENGINE, Metrics, LOGGER],
  useFactory: (
    database: Database,
    ledger: CreditLedger,
    store: ResultStore,
    engine: VerificationEngine,
    metrics: Metrics,
    logger: Logger,
  ) =>
    new ChargeSweep({
      dataSource: () => database.dataSource,
      ledger,
      store,
      engine,
      onSwept: ({ charge, refunded }) => {
        const fields = { account: charge.accountId, ref: charge.ref, kind: charge.kind, refunded };
        metrics.chargesSwept.inc({ outcome: refunded > 0 ? 'refunded' : 'kept' });
        if (refunded === 0) {
          logger.info(fields, 'charge sweep: kept a charge whose answers had landed (its gateway stopped mid-check)');
          return;
        }
        metrics.credits.inc({ direction: 'refunded' }, refunded);
        logger.warn(
          fields,
          'charge sweep: refunded a charge whose check was never answered (its gateway stopped mid-check)',
        );
      },
      onError: (error) => logger.warn({ err: error }, 'charge sweep: could not sweep; trying again at the next sweep'),
    }),
};
