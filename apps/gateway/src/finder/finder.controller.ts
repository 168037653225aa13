import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { DomainInsight, FinderAnswer } from '@mailguard/finder';
import { Scopes, setCreditsRemaining, type AuthedRequest } from '../auth/access';
import { FinderService } from './finder.service';

@Controller('email-finder')
export class FinderController {
  constructor(private readonly finder: FinderService) {}

  /** #10: free. */
  @Get('domain/:domain')
  @Scopes('full', 'verify')
  domain(@Param('domain') param: string): Promise<DomainInsight> {
    return this.finder.domain(param);
  }

  /** #9: 1 credit when an address is returned, nothing otherwise. */
  @Get()
  @Scopes('full', 'verify')
  async find(
    @Req() req: AuthedRequest,
    @Res({ passthrough: true }) res: Response,
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
