import { judgeGrowth, slope } from './trend';

const RULE = { warmup: 2, ratio: 1.25, slack: 48 };
/** A deterministic wobble of ±`size` around zero, like garbage collection's. */
const noise = (index: number, size: number) => size * Math.sin(index * 2.1);

describe('judgeGrowth', () => {
  it('says nothing with fewer than six cycles after warm-up: three cycles cannot show a trend', () => {
    expect(judgeGrowth([100, 500, 900], RULE)).toBeNull();
    expect(judgeGrowth([1, 2, 3, 4, 5, 6, 7], RULE)).toBeNull();
  });

  it('passes a flat series with noise, a warm-up climb, and a step up that then stays flat', () => {
    const flat = Array.from({ length: 40 }, (_, i) => 200 + noise(i, 30));
    expect(judgeGrowth(flat, RULE)?.verdict).toBeNull();
    const warmup = [120, 180, ...flat];
    expect(judgeGrowth(warmup, RULE)?.verdict).toBeNull();
    const step = Array.from({ length: 40 }, (_, i) => (i < 6 ? 200 : 240) + noise(i, 10));
    expect(judgeGrowth(step, RULE)?.verdict).toBeNull();
  });

  it('passes one late spike: the fitted line does not rise with it', () => {
    const spike = Array.from({ length: 30 }, (_, i) => (i === 29 ? 900 : 200 + noise(i, 20)));
    expect(judgeGrowth(spike, RULE)?.verdict).toBeNull();
  });

  it('fails a steady leak hidden in noise, and names the figures', () => {
    const leak = Array.from({ length: 40 }, (_, i) => 200 + 4 * i + noise(i, 30));
    const growth = judgeGrowth(leak, RULE);
    expect(growth?.verdict).toMatch(/^grew from \d+\.\d to \d+\.\d \(fitted rise/);
    expect(growth?.slope).toBeCloseTo(4, 0);
  });
});

describe('slope', () => {
  it('is the least-squares slope per index', () => {
    expect(slope([1, 3, 5, 7])).toBeCloseTo(2);
    expect(slope([5, 5, 5])).toBe(0);
    expect(slope([4])).toBe(0);
  });
});
