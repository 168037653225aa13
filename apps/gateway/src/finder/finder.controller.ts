import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { DomainInsight, FinderAnswer } from '@mailguard/finder';
import { Area, Scopes, setCreditsRemaining, type AuthedRequest } from '../auth/access';
import { ApiErrors, ApiQueryParams } from '../docs/api-docs';
import { DomainInsightDto, FinderAnswerDto, FinderQueryDto } from './finder.dto';
import { FinderService } from './finder.service';

@ApiTags('finder')
@Area('checks')
@Controller('email-finder')
export class FinderController {
  constructor(private readonly finder: FinderService) {}

  /** #10: free. */
  @Get('domain/:domain')
  @Scopes('full', 'verify')
  @ApiOperation({ summary: 'What is known about a domain: MX, provider, catch-all and its address pattern (free)' })
  @ApiParam({ name: 'domain', description: 'A domain, or a URL of it' })
  @ApiOkResponse({ type: DomainInsightDto })
  @ApiErrors(400)
  domain(@Param('domain') param: string): Promise<DomainInsight> {
    return this.finder.domain(param);
  }

  /** #9: 1 credit when an address is returned, nothing otherwise. */
  @Get()
  @Scopes('full', 'verify')
  @ApiOperation({ summary: "Find a person's professional address (1 credit when one is returned)" })
  @ApiQueryParams(FinderQueryDto)
  @ApiOkResponse({ type: FinderAnswerDto })
  @ApiErrors(400, 402)
  async find(
    @Req() req: AuthedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
    @Query('firstName') firstName?: string,
    @Query('lastName') lastName?: string,
    @Query('fullName') fullName?: string,
    @Query('domain') domain?: string,
  ): Promise<FinderAnswer> {
    const { answer, balance } = await this.finder.find(req.auth.account.id, { firstName, lastName, fullName, domain });
    setCreditsRemaining(res, balance);
    return answer;
  }
}
