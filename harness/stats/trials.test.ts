import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { choose, ratio } from './exact-reference.ts';
import {
  averageTrials,
  meanPassAtK,
  meanPassHatK,
  passAtK,
  passAtKPerInstance,
  passHatK,
  passHatKPerInstance,
} from './trials.ts';

/** All k-subsets of {0, …, n−1}. */
function* subsets(n: number, k: number, start = 0, acc: number[] = []): Generator<number[]> {
  if (acc.length === k) {
    yield acc.slice();
    return;
  }
  for (let i = start; i < n; i++) {
    acc.push(i);
    yield* subsets(n, k, i + 1, acc);
    acc.pop();
  }
}

/** Brute force over subsets: trials 0..c−1 pass. */
function bruteForce(n: number, c: number, k: number): { atK: number; hatK: number } {
  let total = 0;
  let any = 0;
  let all = 0;
  for (const s of subsets(n, k)) {
    total++;
    const passes = s.filter((i) => i < c).length;
    if (passes > 0) any++;
    if (passes === k) all++;
  }
  return { atK: any / total, hatK: all / total };
}

describe('passAtK / passHatK', () => {
  it('match brute-force enumeration of subsets for every n ≤ 10', () => {
    for (let n = 1; n <= 10; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          const bf = bruteForce(n, c, k);
          expect(passAtK(n, c, k)).toBeCloseTo(bf.atK, 12);
          expect(passHatK(n, c, k)).toBeCloseTo(bf.hatK, 12);
        }
      }
    }
  });
  it('pass@1 = pass^1 = c/n; pass@k = 1 when n − c < k; pass^k = 0 when c < k', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.nat(), fc.nat(), (n, c0, k0) => {
        const c = c0 % (n + 1);
        const k = 1 + (k0 % n);
        const ok1 = Math.abs(passAtK(n, c, 1) - c / n) < 1e-12 && Math.abs(passHatK(n, c, 1) - c / n) < 1e-12;
        const okEdge = (n - c < k ? passAtK(n, c, k) === 1 : true) && (c < k ? passHatK(n, c, k) === 0 : true);
        const inRange =
          passAtK(n, c, k) >= 0 && passAtK(n, c, k) <= 1 && passHatK(n, c, k) >= 0 && passHatK(n, c, k) <= 1;
        return ok1 && okEdge && inRange && passHatK(n, c, k) <= c / n + 1e-12 && passAtK(n, c, k) >= c / n - 1e-12;
      }),
    );
  });
  it('stay accurate where the binomial coefficients are huge (exact BigInt reference, n = 200)', () => {
    for (const [c, k] of [
      [3, 50],
      [1, 1],
      [100, 100],
      [150, 20],
      [199, 2],
    ] as const) {
      const atK = 1 - ratio(choose(200 - c, k), choose(200, k));
      const hatK = ratio(choose(c, k), choose(200, k));
      expect(Math.abs(passAtK(200, c, k) - atK)).toBeLessThan(1e-12);
      expect(Math.abs(passHatK(200, c, k) - hatK)).toBeLessThan(1e-12 * Math.max(hatK, 1e-300) + 1e-300);
    }
  });
  it('reject impossible arguments', () => {
    expect(() => passAtK(5, 6, 1)).toThrow(RangeError);
    expect(() => passAtK(5, 2, 6)).toThrow(RangeError);
    expect(() => passAtK(5, 2, 0)).toThrow(RangeError);
    expect(() => passHatK(0, 0, 1)).toThrow(RangeError);
  });
});

describe('per-instance trials', () => {
  const trials = new Map<string, number[]>([
    ['a', [1, 1, 1, 1]],
    ['b', [0, 0, 1, 0]],
    ['c', [0, 0, 0, 0]],
  ]);
  it('averageTrials averages within each instance (n counts instances, not trials)', () => {
    const m = averageTrials(trials);
    expect([...m.entries()]).toEqual([
      ['a', 1],
      ['b', 0.25],
      ['c', 0],
    ]);
    expect(averageTrials(new Map([['x', [0.5, 1]]])).get('x')).toBe(0.75);
    expect(() => averageTrials(new Map([['x', []]]))).toThrow(/instance x has no trials/);
    expect(() => averageTrials(new Map([['x', [2]]]))).toThrow(/instance x, trial 0/);
  });
  it('pass@k and pass^k per instance and averaged over instances', () => {
    expect(passAtKPerInstance(trials, 2).get('b')).toBeCloseTo(0.5, 15); // 1 − C(3,2)/C(4,2)
    expect(passHatKPerInstance(trials, 2).get('a')).toBe(1);
    expect(meanPassAtK(trials, 2)).toBeCloseTo((1 + 0.5 + 0) / 3, 15);
    expect(meanPassHatK(trials, 2)).toBeCloseTo((1 + 0 + 0) / 3, 15);
    expect(meanPassAtK(trials, 1)).toBeCloseTo((1 + 0.25 + 0) / 3, 15);
    expect(meanPassAtK(new Map(), 1)).toBeNaN();
  });
  it('refuse non-0/1 trials and instances with fewer than k trials', () => {
    expect(() => passAtKPerInstance(new Map([['x', [1, 0.5]]]), 1)).toThrow(/not 0 or 1/);
    expect(() => passHatKPerInstance(new Map([['x', [1, 0]]]), 3)).toThrow(/fewer than k = 3/);
  });
});
