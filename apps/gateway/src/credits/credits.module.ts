import { Module } from '@nestjs/common';
import { EngineModule, MetricsModule, StoresModule } from '@mailguard/core';
import { chargeSweep } from './charge-sweep';
import { CreditsController } from './credits.controller';

/** Balance, usage and ledger of an account, and the sweep that settles the charges a stopped gateway left open. */
@Module({
  imports: [StoresModule, EngineModule, MetricsModule],
  controllers: [CreditsController],
  providers: [chargeSweep],
})
export class CreditsModule {}
