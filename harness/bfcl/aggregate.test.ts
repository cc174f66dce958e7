// BFCL's leaderboard arithmetic on hand-computed examples (the expected numbers are worked out below from the
// formula in aggregate.ts's header, which restates eval_runner_helper.py), and the intervals' shape.
import { describe, expect, it } from 'vitest';
import { estimateRate } from '../stats/index.ts';
import { aggregate, leaderboardOf, withEstimates } from './aggregate.ts';
import type { BfclCategory } from './categories.ts';

const rec = (category: string, correct: number, total: number) =>
  Array.from({ length: total }, (_, i) => ({ category, valid: i < correct }));

describe('BFCL leaderboard aggregation', () => {
  it('mixes unweighted and count-weighted means as BFCL does', () => {
    const records = [
      ...rec('simple_python', 3, 4), // 0.75
      ...rec('simple_java', 1, 2), // 0.5
      ...rec('simple_javascript', 1, 1), // 1
      ...rec('multiple', 1, 2), // 0.5
      ...rec('parallel', 0, 1), // 0
      ...rec('parallel_multiple', 1, 1), // 1
      ...rec('irrelevance', 2, 2), // 1
      ...rec('live_simple', 1, 2), // 1 of 2
      ...rec('live_multiple', 6, 8), // 6 of 8
      ...rec('live_irrelevance', 1, 4), // 0.25
      ...rec('live_relevance', 1, 1),
      ...rec('multi_turn_base', 1, 2), // 0.5
      ...rec('multi_turn_miss_func', 0, 2), // 0
    ];
    const b = aggregate(records);
    const simple = (0.75 + 0.5 + 1) / 3; // 0.75
    expect(b.groups.simple_non_live).toBeCloseTo(simple, 12);
    expect(b.groups.non_live).toBeCloseTo((simple + 0.5 + 0 + 1) / 4, 12); // 0.5625
    expect(b.groups.live).toBeCloseTo(7 / 10, 12); // weighted by count; live_parallel* not run
    expect(b.groups.irrelevance).toBeCloseTo((1 + 0.25) / 2, 12);
    expect(b.groups.multi_turn).toBeCloseTo((0.5 + 0 + 0 + 0) / 4, 12); // categories not run count 0
    expect(b.groups.relevance).toBe(1);
    const overall = (10 * 0.5625 + 10 * 0.7 + 10 * 0.625 + 30 * 0.125 + 40 * 0) / 100;
    expect(b.overall).toBeCloseTo(overall, 12);
    expect(b.overall_in_scope).toBeCloseTo((10 * 0.5625 + 10 * 0.7 + 10 * 0.625 + 30 * 0.125) / 60, 12);
    expect(b.missing).toEqual([
      'live_parallel',
      'live_parallel_multiple',
      'multi_turn_miss_param',
      'multi_turn_long_context',
    ]);
  });

  it('a live category that was not run still weighs with its dataset size (at accuracy 0)', () => {
    const cats = { live_simple: { correct: 10, total: 10, accuracy: 1 } } as Partial<
      Record<BfclCategory, { correct: number; total: number; accuracy: number }>
    >;
    expect(leaderboardOf(cats).groups.live).toBe(1);
    expect(leaderboardOf(cats, { live_multiple: 30 }).groups.live).toBeCloseTo(10 / 40, 12);
  });

  it('every score comes with an interval that contains it; a perfect run has a degenerate composite interval', () => {
    const b = aggregate([...rec('simple_python', 30, 40), ...rec('multiple', 20, 20), ...rec('irrelevance', 5, 10)]);
    const e = withEstimates(b, { estimateRate, seed: 3, resamples: 500 });
    for (const m of [e.overall, e.overall_in_scope, ...Object.values(e.groups), ...Object.values(e.categories)]) {
      expect(m!.lo).toBeLessThanOrEqual(m!.value + 1e-12);
      expect(m!.hi).toBeGreaterThanOrEqual(m!.value - 1e-12);
    }
    expect(e.categories.simple_python!.n).toBe(40);
    expect(e.overall.hi).toBeGreaterThan(e.overall.lo);
    const again = withEstimates(b, { estimateRate, seed: 3, resamples: 500 });
    expect(again.overall).toEqual(e.overall);
    const perfect = withEstimates(aggregate(rec('multiple', 10, 10)), { estimateRate, resamples: 200 });
    expect([perfect.groups.non_live.lo, perfect.groups.non_live.hi]).toEqual([0.25, 0.25]);
  });
});
