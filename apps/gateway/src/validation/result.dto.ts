import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { VerificationResult } from '@mailguard/engine';
import type { Signal } from '@mailguard/scoring';
import {
  REACHABLES,
  REASONS,
  STATUSES,
  SUB_STATUSES,
  type Reachable,
  type Reason,
  type Status,
  type SubStatus,
} from '@mailguard/verdict';

/*
 * The verification result of docs/api.md#the-result-object as schema classes. Each class implements the type the
 * service returns, so a field the result gains or changes fails the build until it is documented.
 */

type Checks = VerificationResult['checks'];
type SmtpSummary = VerificationResult['smtp'];
type SyntaxCheck = Checks['syntax'];
type DomainCheck = Checks['domain'];
type MxCheck = Checks['mx'];
type SmtpCheck = Checks['smtp'];
type FlagCheck = Checks['disposable'] & Checks['role'];
type CatchAllCheck = Checks['catchAll'];
type DomainAgeCheck = Checks['domainAge'];
type AuthenticationCheck = Checks['authentication'];

const SCORE = { type: 'integer', minimum: 0, maximum: 100 } as const;

export class SmtpSummaryDto implements SmtpSummary {
  @ApiProperty() hostExists!: boolean;
  @ApiProperty() deliverable!: boolean;
  @ApiProperty() catchAll!: boolean;
  @ApiProperty() fullInbox!: boolean;
  @ApiProperty() disabled!: boolean;
}

export class SyntaxCheckDto implements SyntaxCheck {
  @ApiProperty() valid!: boolean;
  @ApiProperty({ example: 'john.doe' }) localPart!: string;
  @ApiProperty({ example: 'example.com' }) domain!: string;
}

export class DomainCheckDto implements DomainCheck {
  @ApiProperty({ type: 'boolean', nullable: true, description: 'null when DNS could not say (SERVFAIL, timeout)' })
  exists!: boolean | null;
}

export class MxRecordDto {
  @ApiProperty({ example: 'mx1.example.com' }) exchange!: string;
  @ApiProperty({ type: 'integer', example: 10 }) priority!: number;
}

export class MxCheckDto implements MxCheck {
  @ApiProperty() valid!: boolean;
  @ApiProperty({ type: [MxRecordDto] }) records!: MxRecordDto[];
  @ApiProperty({ description: 'The domain publishes a null MX (RFC 7505)' }) nullMx!: boolean;
  @ApiProperty({ description: 'No MX: the A/AAAA host receives mail' }) implicit!: boolean;
  @ApiProperty({ type: 'string', nullable: true, example: 'google', description: 'null when not recognised' })
  provider!: string | null;
}

export class SmtpCheckDto implements SmtpCheck {
  @ApiProperty({ description: 'Whether a mail server was asked' }) checked!: boolean;
  @ApiProperty({ type: 'integer', nullable: true, example: 250 }) code!: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: '2.1.5' }) enhancedCode!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'OK' }) message!: string | null;
  @ApiProperty({ type: 'integer', example: 181 }) durationMs!: number;
}

export class FlagCheckDto implements FlagCheck {
  @ApiProperty() value!: boolean;
}

export class CatchAllSignalDto implements Signal {
  @ApiProperty() signal!: string;
  @ApiProperty() weight!: number;
}

export class CatchAllCheckDto implements CatchAllCheck {
  @ApiProperty() value!: boolean;
  @ApiProperty({ ...SCORE, nullable: true, description: 'When value is true' }) confidence!: number | null;
  @ApiPropertyOptional({ type: [CatchAllSignalDto], description: 'What moved the confidence' })
  signals?: CatchAllSignalDto[];
}

export class DomainAgeCheckDto implements DomainAgeCheck {
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '1995-08-14T04:00:00Z' }) createdAt!:
    string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 11426 }) ageDays!: number | null;
}

export class SpfDto {
  @ApiProperty() present!: boolean;
  @ApiProperty({ type: 'string', nullable: true, example: 'v=spf1 include:_spf.google.com ~all' }) record!:
    string | null;
}

export class DkimDto {
  @ApiProperty() present!: boolean;
  @ApiProperty({ type: [String], example: ['google'] }) selectors!: string[];
}

export class DmarcDto {
  @ApiProperty() present!: boolean;
  @ApiProperty({ type: 'string', nullable: true, example: 'reject' }) policy!: string | null;
}

export class AuthenticationCheckDto implements AuthenticationCheck {
  @ApiProperty({ type: SpfDto }) spf!: SpfDto;
  @ApiProperty({ type: DkimDto }) dkim!: DkimDto;
  @ApiProperty({ type: DmarcDto }) dmarc!: DmarcDto;
}

/** The nine checks, each with its own verdict. */
export class ChecksDto implements Checks {
  @ApiProperty({ type: SyntaxCheckDto }) syntax!: SyntaxCheckDto;
  @ApiProperty({ type: DomainCheckDto }) domain!: DomainCheckDto;
  @ApiProperty({ type: MxCheckDto }) mx!: MxCheckDto;
  @ApiProperty({ type: SmtpCheckDto }) smtp!: SmtpCheckDto;
  @ApiProperty({ type: FlagCheckDto }) disposable!: FlagCheckDto;
  @ApiProperty({ type: FlagCheckDto }) role!: FlagCheckDto;
  @ApiProperty({ type: CatchAllCheckDto }) catchAll!: CatchAllCheckDto;
  @ApiProperty({ type: DomainAgeCheckDto }) domainAge!: DomainAgeCheckDto;
  @ApiProperty({ type: AuthenticationCheckDto }) authentication!: AuthenticationCheckDto;
}

/** docs/api.md#the-result-object: what every check answers (single, batch, lists, widget, finder). */
export class VerificationResultDto implements VerificationResult {
  @ApiProperty({
    example: 'john.doe@example.com',
    description: 'As normalised: trimmed, domain lower-cased (Unicode form)',
  })
  email!: string;

  @ApiProperty({ example: 'example.com' })
  domain!: string;

  @ApiProperty({ enum: STATUSES, description: 'The verdict (docs/api.md#verdict-rules)' })
  status!: Status;

  @ApiProperty({ ...SCORE, nullable: true, description: 'When smtp.catchAll is true, else null' })
  confidence!: number | null;

  @ApiProperty({ ...SCORE, description: 'How likely a message is delivered' })
  score!: number;

  @ApiProperty({ enum: REASONS, description: 'Why the verdict is what it is (docs/api.md#reasons)' })
  reason!: Reason;

  @ApiProperty({
    enum: SUB_STATUSES,
    nullable: true,
    description: 'A finer cause inside reason (docs/api.md#substatus); null when there is none',
  })
  subStatus!: SubStatus | null;

  @ApiProperty({ description: 'status !== "invalid"' })
  isValid!: boolean;

  @ApiProperty({ enum: REACHABLES })
  reachable!: Reachable;

  @ApiProperty()
  syntax!: boolean;

  @ApiProperty({ type: SmtpSummaryDto })
  smtp!: SmtpSummaryDto;

  @ApiProperty()
  isFree!: boolean;

  @ApiProperty()
  isRole!: boolean;

  @ApiProperty()
  isDisposable!: boolean;

  @ApiProperty()
  hasGravatar!: boolean;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: null,
    description: 'e.g. john.doe@gmail.com for john.doe@gmial.com',
  })
  suggestion!: string | null;

  @ApiProperty({ format: 'date-time' })
  verifiedAt!: string;

  @ApiProperty({ description: 'Served from the result cache' })
  cached!: boolean;

  @ApiProperty({ type: ChecksDto })
  checks!: ChecksDto;
}
