import { Module, type DynamicModule } from '@nestjs/common';
import { StoresModule } from '@mailguard/core';
import { AuthModule } from '../auth/auth.module';
import { ValidationModule } from '../validation/validation.module';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { pipelineFeature } from '../pipeline/pipeline.module';

/** Sign-up (#0): the address is checked by our own engine before the account exists. */
@Module({
  imports: [StoresModule, AuthModule],
  controllers: [AccountsController],
  providers: [AccountsService],
})
export class AccountsModule {
  /** With the gateway's job transport, which the checks need. */
  static withPipeline(pipeline: DynamicModule): DynamicModule {
    return pipelineFeature(pipeline, AccountsModule, [ValidationModule.withPipeline(pipeline)]);
  }
}
