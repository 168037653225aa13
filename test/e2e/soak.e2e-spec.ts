import { DRIVERS } from '../soak/service';
import { soak } from '../soak/soak';

/**
 * The soak's short form (`npm run soak` is the long one): three cycles of every surface at once on
 * ONE long-lived service per driver, each cycle's assertions holding — slots back to 0 when idle,
 * known mailboxes answered definitely, no error logged, the ledger exact, no process above 512 MB —
 * and in the middle cycle a provider's block of the egresses that appears and clears.
 * Growth of memory and event-loop delay needs more cycles than three: only the long run judges it.
 */
// Passing, each driver takes 70-90 s (the block episode adds ~15 s); a failing cycle may wait out its list and idle timeouts before it reports.
jest.setTimeout(240_000);

describe.each(DRIVERS)('soak, short form (%s)', (driver) => {
  it('holds every assertion for three cycles', async () => {
    // The figures as they come: one line per cycle, and each failure.
    const report = await soak({ driver, cycles: 3, print: (line) => process.stdout.write(`${line}\n`) });
    expect(report.failures).toEqual([]);
    expect(report.cycles).toHaveLength(3);
  });
});
