import type { Prober, VerificationEngine } from '@mailguard/engine';
import { domainInsight } from './domain-insight';
import { findAddress, type FinderDeps } from './finder';

/**
 * The finder and the domain insight answer within the check deadline (CHECK_DEADLINE_MS), as every
 * check does: the fuzz found the insight answering past it (it allowed itself 15 s, the finder 30 s).
 * A stand-in engine and prober record the deadline each stage is given; nothing in them is under test.
 */
function recordingEngine(deadlineMs: number) {
  const deadlines: number[] = [];
  const inspection = { needsProbe: true, facts: null, domain: 'acme.test' };
  const engine = {
    options: { deadlineMs },
    inspect: async (_email: string, { deadlineAt }: { deadlineAt: number }) => (deadlines.push(deadlineAt), inspection),
    conclude: () => ({ smtp: { catchAll: false, deliverable: false } }),
  };
  const probe: Prober = async ({ deadlineAt }) => (deadlines.push(deadlineAt), null);
  const deps: FinderDeps = { engine: engine as unknown as VerificationEngine, probe };
  return { deps, deadlines };
}

describe('finder deadlines', () => {
  it.each([
    [
      'the domain insight',
      (deps: FinderDeps) => domainInsight(deps, 'acme.test', { pattern: null, confidence: 0, addresses: 0 } as never),
    ],
    ['the finder', (deps: FinderDeps) => findAddress(deps, { first: 'john', last: ['doe'] }, 'acme.test')],
  ])('%s gives every stage the check deadline', async (_, run) => {
    const { deps, deadlines } = recordingEngine(1_500);
    const started = Date.now();
    await run(deps);
    const ended = Date.now();
    expect(deadlines.length).toBeGreaterThan(0);
    for (const deadlineAt of deadlines) {
      expect(deadlineAt).toBeGreaterThanOrEqual(started + 1_500);
      expect(deadlineAt).toBeLessThanOrEqual(ended + 1_500);
    }
  });
});
