import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length, MaxLength } from 'class-validator';
import { IsOmittable } from '../http/omittable';
import type { SignupResponse } from './accounts.service';

/** #15 */
export class SignupDto {
  @ApiProperty({
    minLength: 3,
    maxLength: 254,
    example: 'john.doe@acme.com',
    description: 'Checked: it must receive mail',
  })
  @IsString({ message: 'email must be a string' })
  @Length(3, 254, { message: 'email must be 3 to 254 characters' })
  email!: string;

  @ApiPropertyOptional({ maxLength: 100, example: 'John' })
  @IsOmittable()
  @IsString({ message: 'name must be a string' })
  @MaxLength(100, { message: 'name must be at most 100 characters' })
  name?: string;

  @ApiPropertyOptional({
    minLength: 10,
    maxLength: 256,
    description: 'Lets the owner sign in (POST /auth/login): at least 10 characters, not the email',
  })
  @IsOmittable()
  @IsString({ message: 'password must be a string' })
  password?: string;
}

export class AccountDto {
  @ApiProperty({ example: 'acc_7yT2kP9xQ4mN1bV6cZ3wR8sL' }) id!: string;
  @ApiProperty({ example: 'john.doe@acme.com' }) email!: string;
  @ApiProperty({ type: 'integer', example: 2500, description: 'The balance granted at sign-up' }) credits!: number;
}

/** #15's answer: the key and the webhook secret are shown this once. */
export class SignupResponseDto implements SignupResponse {
  @ApiProperty({ type: AccountDto }) account!: AccountDto;
  @ApiProperty({ example: 'mg_live_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY', description: 'A full-scope secret key' })
  apiKey!: string;
  @ApiProperty({ example: 'whsec_…', description: 'Keys the HMAC of the list webhooks (X-MailGuard-Signature)' })
  webhookSecret!: string;
}
