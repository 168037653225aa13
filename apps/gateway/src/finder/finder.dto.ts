import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { DomainInsight, FinderAnswer, FinderQuery } from '@mailguard/finder';
import { MxRecordDto, VerificationResultDto } from '../validation/result.dto';

/** #9's query (read by `parseFinderQuery`: 400 without a name or a domain). */
export class FinderQueryDto implements FinderQuery {
  @ApiPropertyOptional({ maxLength: 200, example: 'José', description: 'Given name (with lastName)' })
  firstName?: string;

  @ApiPropertyOptional({ maxLength: 200, example: 'García Márquez', description: 'Family name (with firstName)' })
  lastName?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    example: 'José García Márquez',
    description: 'Instead of firstName and lastName',
  })
  fullName?: string;

  @ApiProperty({ maxLength: 200, example: 'acme.com', description: 'Company domain, or a URL of it' })
  domain?: string;
}

export class FinderAlternativeDto {
  @ApiProperty({ example: 'jgarcia@acme.com' }) email!: string;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100 }) confidence!: number;
}

/** #9: `email` null when the domain has no mail or nobody was found (then nothing is charged). */
export class FinderAnswerDto implements FinderAnswer {
  @ApiProperty({ type: 'string', nullable: true, example: 'jose.garcia@acme.com' })
  email!: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100, description: 'How likely the address reaches the person' })
  confidence!: number;

  @ApiProperty({ type: 'string', nullable: true, example: 'first.last' })
  pattern!: string | null;

  @ApiProperty({ type: VerificationResultDto, nullable: true, description: 'The check of the address returned' })
  result!: VerificationResultDto | null;

  @ApiProperty({ type: [FinderAlternativeDto], description: 'Other likely addresses at a catch-all domain' })
  alternatives!: FinderAlternativeDto[];
}

/** #10 */
export class DomainInsightDto implements DomainInsight {
  @ApiProperty({ example: 'acme.com' })
  domain!: string;

  @ApiProperty({ type: 'boolean', nullable: true, description: 'null when the server could not be asked' })
  catchAll!: boolean | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'first.last', description: 'The learned address pattern' })
  pattern!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'google' })
  provider!: string | null;

  @ApiProperty({ type: [MxRecordDto] })
  mx!: MxRecordDto[];

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    description: "The learned pattern's share; 0 while none is learned",
  })
  confidence!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'The addresses the pattern rests on' })
  addresses!: number;
}
