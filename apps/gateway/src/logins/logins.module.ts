import { Module } from '@nestjs/common';
import { StoresModule } from '@mailguard/core';
import { AuthModule } from '../auth/auth.module';
import { LoginsController } from './logins.controller';
import { LoginsService } from './logins.service';

/** People's sign-in at `/auth`: sessions, passwords, one-time links by mail, members, the audit log. */
@Module({ imports: [StoresModule, AuthModule], controllers: [LoginsController], providers: [LoginsService] })
export class LoginsModule {}
