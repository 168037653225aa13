import { Module } from '@nestjs/common';
import { StoresModule } from '@mailguard/core';
import { CreditsController } from './credits.controller';

/** Balance, usage and ledger of an account. */
@Module({ imports: [StoresModule], controllers: [CreditsController] })
export class CreditsModule {}
