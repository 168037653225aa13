import type { Signal } from '@mailguard/scoring';
import type { Reachable, Reason, Status, SubStatus } from '@mailguard/verdict';

/** The verification result of docs/api.md#the-result-object, shared by every surface (REST, batch, lists, widget, finder, CLI). */
export interface VerificationResult {
  email: string;
  domain: string;
  status: Status;
  confidence: number | null;
  score: number;
  reason: Reason;
  /** A finer cause inside `reason` (docs/api.md#substatus); null when there is none. */
  subStatus: SubStatus | null;
  isValid: boolean;
  reachable: Reachable;
  syntax: boolean;
  smtp: { hostExists: boolean; deliverable: boolean; catchAll: boolean; fullInbox: boolean; disabled: boolean };
  isFree: boolean;
  isRole: boolean;
  isDisposable: boolean;
  hasGravatar: boolean;
  suggestion: string | null;
  verifiedAt: string;
  cached: boolean;
  checks: {
    syntax: { valid: boolean; localPart: string; domain: string };
    /** null when DNS could not say (SERVFAIL, timeout). */
    domain: { exists: boolean | null };
    mx: {
      valid: boolean;
      records: Array<{ exchange: string; priority: number }>;
      nullMx: boolean;
      implicit: boolean;
      provider: string | null;
    };
    smtp: {
      checked: boolean;
      code: number | null;
      enhancedCode: string | null;
      message: string | null;
      durationMs: number;
    };
    disposable: { value: boolean };
    role: { value: boolean };
    catchAll: { value: boolean; confidence: number | null; signals?: Signal[] };
    domainAge: { createdAt: string | null; ageDays: number | null };
    authentication: {
      spf: { present: boolean; record: string | null };
      dkim: { present: boolean; selectors: string[] };
      dmarc: { present: boolean; policy: string | null };
    };
  };
}
