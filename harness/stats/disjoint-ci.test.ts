// Toolhound's rule (disjoint per-run CIs) against the paired test, on constructed pairs of runs whose outcomes are
// worked out by hand below (binomial arithmetic and the normal approximation of each interval), not by the code.

import { describe, expect, it } from 'vitest';
import { compareMany } from './paired.ts';
import { disjointCiRule, rulesAgree } from './disjoint-ci.ts';

/** Instance i0 … i(n−1) with outcome f(i). */
const run = (n: number, f: (i: number) => number) => new Map(Array.from({ length: n }, (_, i) => [`i${i}`, f(i)]));

const both = (a: Map<string, number>, b: Map<string, number>) => ({
  paired: compareMany([{ metric: 'accuracy', a, b }], { seed: 0 })[0]!,
  toolhound: disjointCiRule(a, b, { seed: 0 }),
});

describe("Toolhound's disjoint-CI rule beside the paired test", () => {
  it('agree, credible: 0 of 20 against 20 of 20', () => {
    // McNemar: 20 gains, 0 losses → p = 2·2⁻²⁰ ≈ 1.9e-6. Every difference is 1, so the paired CI is [1, 1].
    // Each run is constant, so its bootstrap CI is a point: [0, 0] and [1, 1], disjoint.
    const { paired, toolhound } = both(
      run(20, () => 0),
      run(20, () => 1),
    );
    expect(paired.pValue).toBeCloseTo(2 * 2 ** -20, 12);
    expect(paired.verdict).toBe('credible gain');
    expect(toolhound).toMatchObject({ a: { lo: 0, hi: 0 }, b: { lo: 1, hi: 1 }, disjoint: true });
    expect(toolhound.verdict).toBe('credible gain');
    expect(rulesAgree(paired.verdict, toolhound.verdict)).toBe(true);
  });

  it('agree, not credible: the same 10 of 20 in both runs', () => {
    // No discordant pair → p = 1; the two CIs are the same interval, so they overlap.
    const same = run(20, (i) => (i < 10 ? 1 : 0));
    const { paired, toolhound } = both(same, new Map(same));
    expect(paired.pValue).toBe(1);
    expect(paired.verdict).toBe('no credible change');
    expect(toolhound.disjoint).toBe(false);
    expect(toolhound.verdict).toBe('no credible change');
  });

  it('disagree: 20 → 28 of 40 with 8 gains and no loss is a credible gain, yet the CIs overlap', () => {
    // B passes every instance A passes plus 8 more. McNemar: 8 discordant pairs, all gains → p = 2·2⁻⁸ = 0.0078125.
    // Paired CI: 8 differences of 1 in 40 → mean 0.2, SE √(0.2·0.8/40) = 0.063 → ≈ [0.08, 0.32], above 0.
    // Toolhound's CIs: A 0.5 ± 1.96·√(0.25/40) = [0.345, 0.655]; B 0.7 ± 1.96·√(0.21/40) = [0.558, 0.842]:
    // they overlap by about 0.1 (the bootstrap's own error is about 0.01), so the rule sees no credible change.
    const a = run(40, (i) => (i < 20 ? 1 : 0));
    const b = run(40, (i) => (i < 28 ? 1 : 0));
    const { paired, toolhound } = both(a, b);
    expect(paired.mcnemar).toMatchObject({ b01: 8, b10: 0 });
    expect(paired.pValue).toBeCloseTo(0.0078125, 12);
    expect(paired.lo).toBeGreaterThan(0.03);
    expect(paired.lo).toBeLessThan(0.13);
    expect(paired.verdict).toBe('credible gain');
    expect(toolhound.a.lo).toBeCloseTo(0.345, 1);
    expect(toolhound.a.hi).toBeCloseTo(0.655, 1);
    expect(toolhound.b.lo).toBeCloseTo(0.558, 1);
    expect(toolhound.b.hi).toBeCloseTo(0.842, 1);
    expect(toolhound.a.hi).toBeGreaterThan(toolhound.b.lo);
    expect(toolhound.verdict).toBe('no credible change');
    expect(rulesAgree(paired.verdict, toolhound.verdict)).toBe(false);
  });

  it('disagree the other way: 0 of 5 against 5 of 5 has disjoint CIs, yet 5 gains cannot reach p ≤ 0.05', () => {
    // Both runs are constant: CIs [0, 0] and [1, 1], disjoint. McNemar: 5 gains, 0 losses → p = 2·2⁻⁵ = 0.0625.
    const { paired, toolhound } = both(
      run(5, () => 0),
      run(5, () => 1),
    );
    expect(paired.pValue).toBeCloseTo(0.0625, 12);
    expect(paired.verdict).toBe('no credible change');
    expect(toolhound.verdict).toBe('credible gain');
    expect(rulesAgree(paired.verdict, toolhound.verdict)).toBe(false);
  });

  it('a harm, and the lower-is-better wording, compare by direction', () => {
    const { toolhound } = both(
      run(20, () => 1),
      run(20, () => 0),
    );
    expect(toolhound.verdict).toBe('credible harm');
    expect(rulesAgree('credible rise (worse)', 'credible gain')).toBe(true);
    expect(rulesAgree('credible fall (improved)', 'credible harm')).toBe(true);
    expect(rulesAgree('credible fall (improved)', 'credible gain')).toBe(false);
  });

  it('uses only the shared instances, and gives no interval below two', () => {
    const r = disjointCiRule(
      new Map([['x', 1]]),
      new Map([
        ['x', 0],
        ['y', 1],
      ]),
    );
    expect(r.n).toBe(1);
    expect(Number.isNaN(r.a.lo)).toBe(true);
    expect(r.disjoint).toBe(false);
  });
});
