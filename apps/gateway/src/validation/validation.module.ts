import { Module } from '@nestjs/common';
import { EngineModule, StoresModule } from '@mailguard/core';
import { ValidationController } from './validation.controller';
import { VerificationService } from './verification.service';

/** Single and batch checks (#1, #2) and delivery feedback (#3); the checks serve sign-up, the widget and MCP too. */
@Module({
  imports: [StoresModule, EngineModule],
  controllers: [ValidationController],
  providers: [VerificationService],
  exports: [VerificationService],
})
export class ValidationModule {}
