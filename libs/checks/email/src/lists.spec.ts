import { DISPOSABLE_DOMAIN_COUNT, isDisposableDomain, isFreeDomain } from './providers';
import { isRoleLocalPart, ROLE_COUNT } from './role';

describe('role addresses', () => {
  it('knows at least 100 role local parts, including those docs/api.md names', () => {
    expect(ROLE_COUNT).toBeGreaterThanOrEqual(100);
    const named =
      'admin info support sales noreply no-reply postmaster contact billing hello help hr jobs careers marketing office webmaster abuse team accounts press privacy security enquiries service';
    for (const local of named.split(' ')) expect(isRoleLocalPart(local)).toBe(true);
  });

  it('handles case, plus-addressing and separators', () => {
    expect(isRoleLocalPart('Sales+EU')).toBe(true);
    expect(isRoleLocalPart('no_reply')).toBe(true);
    expect(isRoleLocalPart('No.Reply')).toBe(true);
    expect(isRoleLocalPart('"support"')).toBe(true);
  });

  it('does not call people roles', () => {
    for (const local of ['john.doe', 'jane', 'maria.garcia', 'infoman', 'salesforce.admin.bob'])
      expect(isRoleLocalPart(local)).toBe(false);
  });
});

describe('disposable domains', () => {
  it('combines large maintained lists', () => {
    expect(DISPOSABLE_DOMAIN_COUNT).toBeGreaterThan(100_000);
    for (const domain of ['mailinator.com', 'guerrillamail.com', '10minutemail.com', 'yopmail.com'])
      expect(isDisposableDomain(domain)).toBe(true);
  });

  it('walks parent domains', () => {
    expect(isDisposableDomain('abc.mailinator.com')).toBe(true);
    expect(isDisposableDomain('deep.sub.yopmail.com')).toBe(true);
  });

  it('never calls big free providers disposable', () => {
    for (const domain of [
      'gmail.com',
      '126.com',
      '163.com',
      'bluewin.ch',
      'qq.com',
      'outlook.com',
      'gmx.de',
      'mail.ru',
    ])
      expect(isDisposableDomain(domain)).toBe(false);
    expect(isDisposableDomain('acme.test')).toBe(false);
  });
});

describe('free providers', () => {
  it('recognises consumer providers and not company or disposable domains', () => {
    for (const domain of ['gmail.com', 'yahoo.com', 'hotmail.com', '126.com', 'bluewin.ch', 'gmx.de'])
      expect(isFreeDomain(domain)).toBe(true);
    for (const domain of ['acme.test', 'mailinator.com', 'microsoft.com']) expect(isFreeDomain(domain)).toBe(false);
  });
});
