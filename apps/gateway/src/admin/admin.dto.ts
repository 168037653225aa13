import { IsInt, IsString, Length, Max, Min, NotEquals } from 'class-validator';
import { MAX_REASON } from '@mailguard/accounts';
import { IsOmittable } from '../http/omittable';

/** An operator's movement of credits is at most this many either way. */
export const MAX_OPERATOR_AMOUNT = 1_000_000_000;

const reasonMessage = `reason must be 1 to ${MAX_REASON} characters`;

/** POST /admin/accounts/:id/credits */
export class CreditsDto {
  @IsInt({ message: 'amount must be a whole number of credits' })
  @NotEquals(0, { message: 'amount must not be 0' })
  @Min(-MAX_OPERATOR_AMOUNT, { message: `amount must be at least -${MAX_OPERATOR_AMOUNT}` })
  @Max(MAX_OPERATOR_AMOUNT, { message: `amount must be at most ${MAX_OPERATOR_AMOUNT}` })
  amount!: number;

  @IsString({ message: 'reason must be a string' })
  @Length(1, MAX_REASON, { message: reasonMessage })
  reason!: string;
}

/** POST /admin/accounts/:id/suspend */
export class SuspendDto {
  @IsString({ message: 'reason must be a string' })
  @Length(1, MAX_REASON, { message: reasonMessage })
  reason!: string;
}

/** POST /admin/accounts/:id/unsuspend, DELETE /admin/accounts/:id: a reason is welcome, not required. */
export class OptionalReasonDto {
  @IsOmittable()
  @IsString({ message: 'reason must be a string' })
  @Length(1, MAX_REASON, { message: reasonMessage })
  reason?: string;
}
