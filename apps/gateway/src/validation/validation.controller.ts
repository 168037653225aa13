import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { VerificationResult } from '@mailguard/engine';
import { AppError, MAX_ADDRESS_INPUT } from '@mailguard/errors';
import { Area, Scopes, setCreditsRemaining, type AuthedRequest } from '../auth/access';
import { ApiErrors } from '../docs/api-docs';
import { VerificationResultDto } from './result.dto';
import { BatchDto, BatchResultsDto, FeedbackAcceptedDto, FeedbackDto } from './validation.dto';
import { VerificationService, type CachedAnswer } from './verification.service';

@ApiTags('validation')
@Area('checks')
@Controller('email-validation')
export class ValidationController {
  constructor(private readonly verifications: VerificationService) {}

  /** #3: free; 202 once stored. */
  @Post('feedback')
  @Scopes('full', 'verify')
  @HttpCode(202)
  @ApiOperation({ summary: 'Report whether mail to a checked address was delivered (teaches the catch-all model)' })
  @ApiAcceptedResponse({ type: FeedbackAcceptedDto })
  @ApiErrors(400)
  async feedback(@Body() body: FeedbackDto, @Req() req: AuthedRequest): Promise<{ accepted: true }> {
    await this.verifications.feedback(req.auth.account.id, body.email, body.outcome);
    return { accepted: true };
  }

  @Get(':email')
  @Scopes('full', 'verify')
  @ApiOperation({ summary: 'Verify one address' })
  @ApiParam({ name: 'email', description: 'The address, URL-encoded; any text up to 1,024 characters gets a verdict' })
  @ApiOkResponse({ type: VerificationResultDto })
  @ApiErrors(400, 402, 503)
  async single(
    @Param('email') email: string,
    @Req() req: AuthedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<VerificationResult | CachedAnswer> {
    if (email.length > MAX_ADDRESS_INPUT)
      throw new AppError('bad_request', `The address is longer than ${MAX_ADDRESS_INPUT} characters`);
    const { result, balance } = await this.verifications.checkSingle(req.auth.account.id, email);
    setCreditsRemaining(res, balance);
    return result;
  }

  @Post('batch')
  @Scopes('full', 'verify')
  @ApiOperation({ summary: 'Verify up to 100 addresses' })
  @ApiOkResponse({ type: BatchResultsDto })
  @ApiErrors(400, 402, 503)
  async batch(
    @Body() body: BatchDto,
    @Req() req: AuthedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<{ results: VerificationResult[] }> {
    const { results, balance } = await this.verifications.check(req.auth.account.id, body.emails, 'batch');
    setCreditsRemaining(res, balance);
    res.code(200);
    return { results };
  }
}
