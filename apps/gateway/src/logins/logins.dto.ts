import { IsString, MaxLength } from 'class-validator';

/*
 * The bodies of /auth: shapes only (strings of bounded length). The rules — a valid address, a
 * password's length and that it is not the email, a role — are the service's and libs/product/accounts'.
 */

const string = (name: string, max = 1024) => [
  IsString({ message: `${name} must be a string` }),
  MaxLength(max, { message: `${name} must be at most ${max} characters` }),
];

function Text(name: string, max?: number): PropertyDecorator {
  return (target, key) => string(name, max).forEach((decorate) => decorate(target, key));
}

export class LoginDto {
  @Text('email', 254) email!: string;
  @Text('password', 256) password!: string;
}

export class EmailDto {
  @Text('email', 254) email!: string;
}

export class TokenPasswordDto {
  @Text('token', 128) token!: string;
  @Text('password', 256) password!: string;
}

export class PasswordChangeDto {
  @Text('currentPassword', 256) currentPassword!: string;
  @Text('password', 256) password!: string;
}

export class InviteDto {
  @Text('email', 254) email!: string;
  @Text('role', 32) role!: string;
}
