import { addressKey, decide, localResult, type WidgetResult } from './status';

const result = (fields: Partial<WidgetResult>): WidgetResult => ({
  email: 'a@b.test',
  status: 'valid',
  reason: 'accepted_email',
  isFree: false,
  isRole: false,
  isDisposable: false,
  ...fields,
});

describe('decide (docs/widget.md#options rules)', () => {
  it('always blocks invalid addresses, whatever the options', () => {
    for (const [blockDisposable, blockFree] of [
      [false, false],
      [true, true],
    ]) {
      expect(
        decide(
          result({ status: 'invalid', reason: 'rejected_email', isFree: true, isDisposable: true }),
          blockDisposable,
          blockFree,
        ),
      ).toEqual({ status: 'invalid', reason: 'invalid' });
    }
  });

  it('blocks disposable addresses only with blockDisposable; otherwise they are risky', () => {
    const disposable = result({ status: 'risky', reason: 'disposable', isDisposable: true });
    expect(decide(disposable, true, false)).toEqual({ status: 'disposable', reason: 'disposable' });
    expect(decide(disposable, false, false)).toEqual({ status: 'risky', reason: 'disposable' });
  });

  it('blocks free addresses only with blockFree; otherwise they keep their verdict', () => {
    const free = result({ isFree: true });
    expect(decide(free, true, true)).toEqual({ status: 'free', reason: 'free' });
    expect(decide(free, true, false)).toEqual({ status: 'valid', reason: null });
    expect(decide(result({ isFree: true, status: 'risky', reason: 'full_inbox' }), true, false)).toEqual({
      status: 'risky',
      reason: 'full_inbox',
    });
  });

  it('lets catch-all, role and unanswered addresses through as risky, with their reason', () => {
    for (const reason of ['catch_all', 'role', 'unknown']) {
      expect(decide(result({ status: 'risky', reason }), true, true)).toEqual({ status: 'risky', reason });
    }
  });
});

describe('localResult', () => {
  it('answers obvious typos without the service, and leaves plausible addresses to it', () => {
    for (const typo of ['jane', 'jane@', '@acme.test', 'jane@acme', 'ja ne@acme.test', 'jane@acme..test']) {
      expect(localResult(typo)).toMatchObject({ email: typo, status: 'invalid', reason: 'invalid_syntax' });
    }
    for (const plausible of ['jane@acme.test', 'josé@exämple.de', '"odd"@acme.co.uk'])
      expect(localResult(plausible)).toBeNull();
  });
});

describe('addressKey', () => {
  it('folds the domain case and keeps the local part', () => {
    expect(addressKey('Jane@ACME.Test')).toBe('Jane@acme.test');
  });
});
