import { signGuardToken, verifyGuardToken, type GuardTokenClaims } from './guard-token';

const claims: GuardTokenClaims = {
  email: 'jane@acme.test',
  status: 'valid',
  reason: 'accepted_email',
  disposable: false,
  free: false,
  role: false,
  catchAll: false,
  iat: 1_800_000_000,
};
const now = claims.iat * 1000 + 60_000;

describe('guard tokens', () => {
  it('verify with the secret that signed them', () => {
    expect(verifyGuardToken(signGuardToken(claims, 'whsec_a'), 'whsec_a', 3_600, now)).toEqual(claims);
  });

  it('are refused with another secret, altered claims, a wrong shape or past their age', () => {
    const token = signGuardToken(claims, 'whsec_a');
    expect(verifyGuardToken(token, 'whsec_b', 3_600, now)).toBeNull();
    const [, signature] = token.split('.');
    const forged = `${Buffer.from(JSON.stringify({ ...claims, status: 'invalid' })).toString('base64url')}.${signature}`;
    expect(verifyGuardToken(forged, 'whsec_a', 3_600, now)).toBeNull();
    for (const bad of ['', 'abc', `${token}.x`, `${token.split('.')[0]}.`])
      expect(verifyGuardToken(bad, 'whsec_a', 3_600, now)).toBeNull();
    expect(verifyGuardToken(token, 'whsec_a', 30, now)).toBeNull();
  });
});
