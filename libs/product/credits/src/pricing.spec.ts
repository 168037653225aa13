import type { VerificationResult } from '@mailguard/engine';
import {
  CHECK_PRICE,
  checkCost,
  checksCost,
  checksRefund,
  earnsWorkBonus,
  FINDER_PRICE,
  finderKeepsCharge,
  isRefunded,
  listCharge,
  listHold,
  signupGrants,
  type SignupCheck,
} from './pricing';

const answer = (reachable: VerificationResult['reachable']) => ({ reachable });

describe('pricing policy (docs/api.md#credits)', () => {
  it('prices a check at 1 credit and a batch per distinct address', () => {
    expect(CHECK_PRICE).toBe(1);
    expect(checksCost(1)).toBe(1);
    expect(checksCost(37)).toBe(37);
  });

  it('refunds exactly the answers whose reachable is unknown', () => {
    expect((['safe', 'risky', 'invalid'] as const).map((reachable) => isRefunded(answer(reachable)))).toEqual([
      false,
      false,
      false,
    ]);
    expect(isRefunded(answer('unknown'))).toBe(true);
    expect(checkCost(answer('invalid'))).toBe(1);
    expect(checkCost(answer('unknown'))).toBe(0);
    expect(checksRefund([answer('safe'), answer('unknown'), answer('risky'), answer('unknown')])).toBe(2);
    expect(checksRefund([])).toBe(0);
  });

  it('holds a list per chargeable row, and charges settled rows that had an answer', () => {
    expect(listHold(1_190)).toBe(1_190);
    expect(listCharge([answer('safe'), answer('unknown'), answer('invalid')])).toBe(2);
  });

  it('keeps the finder charge only when an address was returned', () => {
    expect(FINDER_PRICE).toBe(1);
    const result = { reachable: 'safe' } as VerificationResult;
    expect(finderKeepsCharge({ email: 'jane.doe@acme.test', result })).toBe(true);
    expect(finderKeepsCharge({ email: null, result: null })).toBe(false);
  });

  describe('sign-up', () => {
    const check = (change: Partial<Omit<SignupCheck, 'checks'>> & { smtpChecked?: boolean } = {}): SignupCheck => ({
      isValid: change.isValid ?? true,
      isFree: change.isFree ?? false,
      isDisposable: change.isDisposable ?? false,
      checks: { smtp: { checked: change.smtpChecked ?? true } },
    });

    it('grants 1,000 credits, and 2,500 in all for a work address', () => {
      const total = (grants: Array<{ amount: number }>) => grants.reduce((sum, grant) => sum + grant.amount, 0);
      expect(signupGrants(false)).toEqual([{ amount: 1_000, reason: 'signup' }]);
      expect(signupGrants(true)).toEqual([
        { amount: 1_000, reason: 'signup' },
        { amount: 1_500, reason: 'signup bonus: work email' },
      ]);
      expect(total(signupGrants(true))).toBe(2_500);
    });

    it('gives the work bonus only for an address a mail server took that is neither free nor disposable', () => {
      expect(earnsWorkBonus(check())).toBe(true);
      expect(earnsWorkBonus(check({ isFree: true }))).toBe(false);
      expect(earnsWorkBonus(check({ isDisposable: true }))).toBe(false);
      expect(earnsWorkBonus(check({ isValid: false }))).toBe(false);
      // An MX that could not be asked says nothing: no bonus, or made-up domains would farm it.
      expect(earnsWorkBonus(check({ smtpChecked: false }))).toBe(false);
    });
  });
});
