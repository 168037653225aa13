import { IsIn, IsString, MaxLength } from 'class-validator';
import { MEMBER_ROLES } from '@mailguard/accounts';
import type { MemberRole } from '@mailguard/db';

/** The bodies of the /auth routes: shapes only; the password rules live in libs/product/accounts. */
export class LoginDto {
  @IsString({ message: 'email must be a string' })
  @MaxLength(254, { message: 'email must be at most 254 characters' })
  email!: string;

  @IsString({ message: 'password must be a string' })
  password!: string;
}

export class PasswordChangeDto {
  @IsString({ message: 'currentPassword must be a string' })
  currentPassword!: string;

  @IsString({ message: 'password must be a string' })
  password!: string;
}

export class PasswordResetDto {
  @IsString({ message: 'email must be a string' })
  @MaxLength(254, { message: 'email must be at most 254 characters' })
  email!: string;
}

/** Confirms a password reset or accepts an invitation: the emailed token and the new password. */
export class TokenPasswordDto {
  @IsString({ message: 'token must be a string' })
  @MaxLength(200, { message: 'token must be at most 200 characters' })
  token!: string;

  @IsString({ message: 'password must be a string' })
  password!: string;
}

export class InviteDto {
  @IsString({ message: 'email must be a string' })
  @MaxLength(254, { message: 'email must be at most 254 characters' })
  email!: string;

  @IsIn(MEMBER_ROLES, { message: `role must be one of ${MEMBER_ROLES.join(', ')}` })
  role!: MemberRole;
}
