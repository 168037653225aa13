import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, MaxLength } from 'class-validator';
import type { Response } from 'express';
import type { VerificationResult } from '@mailguard/engine';
import type { Outcome } from '@mailguard/feedback';
import { AppError, MAX_ADDRESS_INPUT, MAX_BATCH } from '@mailguard/errors';
import { Scopes, setCreditsRemaining, type AuthedRequest } from '../auth/access';
import { VerificationService } from './verification.service';

export class BatchDto {
  @IsArray({ message: 'emails must be an array of addresses' })
  @ArrayMinSize(1, { message: 'emails must hold at least one address' })
  @ArrayMaxSize(MAX_BATCH, { message: `emails may hold at most ${MAX_BATCH} addresses` })
  @IsString({ each: true, message: 'every entry of emails must be a string' })
  @MaxLength(MAX_ADDRESS_INPUT, { each: true, message: `every address must be at most ${MAX_ADDRESS_INPUT} characters` })
  emails!: string[];
}

export class FeedbackDto {
  @IsString({ message: 'email must be a string' })
  @MaxLength(MAX_ADDRESS_INPUT, { message: `email must be at most ${MAX_ADDRESS_INPUT} characters` })
  email!: string;

  @IsIn(['delivered', 'bounced'], { message: 'outcome must be delivered or bounced' })
  outcome!: Outcome;
}

@Controller('email-validation')
export class ValidationController {
  constructor(private readonly verifications: VerificationService) {}

  /** #3: free; 202 once stored. */
  @Post('feedback')
  @Scopes('full', 'verify')
  @HttpCode(202)
  async feedback(@Body() body: FeedbackDto, @Req() req: AuthedRequest): Promise<{ accepted: true }> {
    await this.verifications.feedback(req.auth.account.id, body.email, body.outcome);
    return { accepted: true };
  }

  @Get(':email')
  @Scopes('full', 'verify')
  async single(@Param('email') email: string, @Req() req: AuthedRequest, @Res({ passthrough: true }) res: Response): Promise<VerificationResult> {
    if (email.length > MAX_ADDRESS_INPUT) throw new AppError('bad_request', `The address is longer than ${MAX_ADDRESS_INPUT} characters`);
    const { results, balance } = await this.verifications.check(req.auth.account.id, [email], 'single');
    setCreditsRemaining(res, balance);
    return results[0];
  }

  @Post('batch')
  @Scopes('full', 'verify')
  async batch(@Body() body: BatchDto, @Req() req: AuthedRequest, @Res({ passthrough: true }) res: Response): Promise<{ results: VerificationResult[] }> {
    const { results, balance } = await this.verifications.check(req.auth.account.id, body.emails, 'batch');
    setCreditsRemaining(res, balance);
    res.status(200);
    return { results };
  }
}
