import { loadConfig } from '@mailguard/config';
import { createEngine, type VerificationEngine } from '@mailguard/engine';
import { learnDomain, type DomainModel } from '@mailguard/scoring';
import { startLab, type Lab } from '../../../../test/lab';
import { findAddress, type FinderDeps } from './finder';

/**
 * One confidence per address, whichever surface asks: at a catch-all domain the finder reports for
 * each address it names the confidence a check of that address gives, with the same knowledge of
 * the domain (the lab's real DNS, RDAP, Gravatar and a catch-all SMTP server; probes in this process,
 * as the CLI runs them). It used to report a share of the candidates' pattern weights instead (33
 * where the check said 72).
 */
let lab: Lab;
let engine: VerificationEngine;
let deps: FinderDeps;

beforeAll(async () => {
  lab = await startLab({
    servers: { 'mx.wide.test': { catchAll: true } },
    domains: {
      'wide.test': {
        mx: [{ host: 'mx.wide.test', priority: 10 }],
        txt: ['v=spf1 mx -all'],
        records: { _dmarc: { txt: ['v=DMARC1; p=reject'] } },
        registered: '2012-03-01T00:00:00Z',
        // An avatar for one candidate that no pattern share would put first.
        gravatars: ['jsmith'],
      },
    },
  });
  engine = createEngine(loadConfig({ ...lab.env, SMTP_HELO_NAME: 'finder-ca.mailguard.test' }));
  deps = { engine, probe: (request) => engine.probeHere(request) };
});
afterAll(async () => {
  engine.closeSessions();
  await lab.stop();
});

/** A check of the address with what the domain has taught (libs/product/feedback DomainKnowledge.conclude does the same). */
async function check(email: string, model: DomainModel | null): Promise<number | null> {
  const inspection = await engine.inspect(email, { deadlineAt: Date.now() + engine.options.deadlineMs });
  const outcomes = await engine.probeHere({ inspections: [inspection], deadlineAt: Date.now() + 10_000 });
  const result = engine.conclude(inspection, outcomes?.[0] ?? null, model);
  expect(result.smtp.catchAll).toBe(true);
  return result.confidence;
}

const flastDomain = learnDomain(
  ['akowalski', 'mtanaka', 'bnguyen', 'rpatel'].map((localPart) => ({
    localPart,
    outcome: 'exists' as const,
    source: 'avatar' as const,
    pattern: null,
  })),
);

it.each([
  ['nothing known about the domain', null],
  ['the domain known to write flast', flastDomain],
])(
  'the finder reports for each address the confidence a check of it gives: %s',
  async (_, model) => {
    const answer = await findAddress(deps, { first: 'john', last: ['smith'] }, 'wide.test', model);
    expect(answer.email).not.toBeNull();
    expect(answer.alternatives.length).toBeGreaterThan(0);
    const named = [{ email: answer.email as string, confidence: answer.confidence }, ...answer.alternatives];
    for (const { email, confidence } of named)
      expect({ email, confidence }).toEqual({ email, confidence: await check(email, model) });
    // The best is named first, and its result is the check's.
    for (const other of answer.alternatives) expect(other.confidence).toBeLessThanOrEqual(answer.confidence);
    expect(answer.result?.confidence).toBe(answer.confidence);
  },
  30_000,
);

it('an avatar counts for the finder as for the check: the address with one is named first', async () => {
  const answer = await findAddress(deps, { first: 'john', last: ['smith'] }, 'wide.test');
  expect(answer.email).toBe('jsmith@wide.test');
  expect(answer.result?.hasGravatar).toBe(true);
});
