import { Module } from '@nestjs/common';
import { StoresModule } from '@mailguard/core';
import { KeysController } from './keys.controller';
import { KeysService } from './keys.service';

/** An account's API keys (#15–#18). */
@Module({ imports: [StoresModule], controllers: [KeysController], providers: [KeysService] })
export class KeysModule {}
