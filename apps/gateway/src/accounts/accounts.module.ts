import { Module } from '@nestjs/common';
import { StoresModule } from '@mailguard/core';
import { AuthModule } from '../auth/auth.module';
import { ValidationModule } from '../validation/validation.module';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';

/** Sign-up (#0): the address is checked by our own engine before the account exists. */
@Module({
  imports: [StoresModule, AuthModule, ValidationModule],
  controllers: [AccountsController],
  providers: [AccountsService],
})
export class AccountsModule {}
