import { Module, type DynamicModule } from '@nestjs/common';
import { Operators } from '@mailguard/accounts';
import { StoresModule } from '@mailguard/core';
import { CreditLedger } from '@mailguard/credits';
import { Database } from '@mailguard/db';
import { ApiKeys } from '@mailguard/keys';
import { ListStore } from '@mailguard/lists';
import { AuthModule } from '../auth/auth.module';
import { pipelineFeature } from '../pipeline/pipeline.module';
import { AdminController } from './admin.controller';
import { AdminGuard } from './admin.guard';
import { AdminService } from './admin.service';

/**
 * The operator console (docs/operations.md#operator-console): accounts, credits, suspension, erasure
 * and the audit log, behind ADMIN_TOKEN. Mounted only when ADMIN_TOKEN is set (GatewayModule).
 */
@Module({
  imports: [StoresModule, AuthModule],
  controllers: [AdminController],
  providers: [
    {
      provide: Operators,
      inject: [Database, CreditLedger, ListStore, ApiKeys],
      useFactory: (database: Database, ledger: CreditLedger, lists: ListStore, keys: ApiKeys) =>
        new Operators(() => database.dataSource, ledger, lists, keys, database.mode === 'embedded'),
    },
    AdminService,
    AdminGuard,
  ],
})
export class AdminModule {
  /** With the gateway's job transport (resumed lists are fed again). */
  static withPipeline(pipeline: DynamicModule): DynamicModule {
    return pipelineFeature(pipeline, AdminModule, [pipeline]);
  }
}
