import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, MaxLength } from 'class-validator';
import type { Outcome } from '@mailguard/feedback';
import { MAX_ADDRESS_INPUT, MAX_BATCH } from '@mailguard/errors';
import { unionMembers } from '../docs/api-docs';
import { VerificationResultDto } from './result.dto';

const OUTCOMES = unionMembers<Outcome>()('delivered', 'bounced');

/** #2 */
export class BatchDto {
  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_BATCH, example: ['jane@example.com', 'john@example.com'] })
  @IsArray({ message: 'emails must be an array of addresses' })
  @ArrayMinSize(1, { message: 'emails must hold at least one address' })
  @ArrayMaxSize(MAX_BATCH, { message: `emails may hold at most ${MAX_BATCH} addresses` })
  @IsString({ each: true, message: 'every entry of emails must be a string' })
  @MaxLength(MAX_ADDRESS_INPUT, {
    each: true,
    message: `every address must be at most ${MAX_ADDRESS_INPUT} characters`,
  })
  emails!: string[];
}

export class BatchResultsDto {
  @ApiProperty({ type: [VerificationResultDto], description: 'In input order' })
  results!: VerificationResultDto[];
}

/** #3 */
export class FeedbackDto {
  @ApiProperty({ maxLength: MAX_ADDRESS_INPUT, example: 'jane@example.com' })
  @IsString({ message: 'email must be a string' })
  @MaxLength(MAX_ADDRESS_INPUT, { message: `email must be at most ${MAX_ADDRESS_INPUT} characters` })
  email!: string;

  @ApiProperty({ enum: OUTCOMES, description: 'What happened to mail sent to the address' })
  @IsIn(OUTCOMES, { message: 'outcome must be delivered or bounced' })
  outcome!: Outcome;
}

export class FeedbackAcceptedDto {
  @ApiProperty({ enum: [true] })
  accepted!: true;
}
