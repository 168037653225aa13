import { Body, Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { Public } from '../auth/access';
import { AccountsService, type SignupResponse } from './accounts.service';

export class SignupDto {
  @IsString({ message: 'email must be a string' })
  @Length(3, 254, { message: 'email must be 3 to 254 characters' })
  email!: string;

  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @MaxLength(100, { message: 'name must be at most 100 characters' })
  name?: string;
}

@Controller('accounts')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @Public()
  @HttpCode(201)
  signup(@Body() body: SignupDto, @Ip() ip: string): Promise<SignupResponse> {
    return this.accounts.signup(body.email.trim(), body.name, ip);
  }
}
