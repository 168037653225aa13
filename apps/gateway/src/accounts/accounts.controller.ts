import { Body, Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/access';
import { ApiErrors } from '../docs/api-docs';
import { SignupDto, SignupResponseDto } from './accounts.dto';
import { AccountsService, type SignupResponse } from './accounts.service';

@ApiTags('keys')
@Controller('accounts')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @Public()
  @HttpCode(201)
  @ApiOperation({ summary: 'Sign up: an account, its first full key and its webhook secret (each shown once)' })
  @ApiCreatedResponse({ type: SignupResponseDto })
  @ApiErrors(400, 409, 429)
  signup(@Body() body: SignupDto, @Ip() ip: string): Promise<SignupResponse> {
    return this.accounts.signup(body.email.trim(), body.name, ip, body.password);
  }
}
