import { Module } from '@nestjs/common';
import { StoresModule } from '@mailguard/core';
import { AuthModule } from '../auth/auth.module';
import { ValidationModule } from '../validation/validation.module';
import { WidgetController } from './widget.controller';
import { WidgetService } from './widget.service';

/** The embeddable widget (#11–#14): its script, its checks and an account's widget settings. */
@Module({
  imports: [StoresModule, AuthModule, ValidationModule],
  controllers: [WidgetController],
  providers: [WidgetService],
})
export class WidgetModule {}
