import { Module } from '@nestjs/common';
import { StoresModule } from '@mailguard/core';
import { KeysController } from './keys.controller';

/** An account's API keys (#15–#18). */
@Module({ imports: [StoresModule], controllers: [KeysController] })
export class KeysModule {}
