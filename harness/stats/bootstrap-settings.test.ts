// Every bootstrap estimator fills in and checks its level, resamples and seed the same way, and names itself when
// one is out of range.
import { describe, expect, it } from 'vitest';
import { bootstrapRate } from './bootstrap.ts';
import { clusterBootstrapRate } from './cluster.ts';
import { bootstrapSettings } from './describe.ts';
import { disjointCiRule } from './disjoint-ci.ts';
import { kappaEstimate } from './kappa.ts';
import { pairedRatioDifference } from './paired-ratio.ts';
import { ratioEstimate } from './ratio.ts';

type Opts = { level?: number; resamples?: number };
const d = 'cases';
const ESTIMATORS: Array<[string, (o: Opts) => unknown]> = [
  ['bootstrapRate', (o) => bootstrapRate([1, 0, 1], { denominator: d, ...o })],
  ['clusterBootstrapRate', (o) => clusterBootstrapRate([1, 0], ['a', 'b'], { denominator: d, ...o })],
  ['disjointCiRule', (o) => disjointCiRule(new Map([['x', 1]]), new Map([['x', 0]]), o)],
  [
    'kappaEstimate',
    (o) =>
      kappaEstimate(
        {
          labels: ['a', 'b'],
          counts: [
            [3, 1],
            [1, 3],
          ],
        },
        { denominator: d, ...o },
      ),
  ],
  [
    'pairedRatioDifference',
    (o) => pairedRatioDifference(new Map([['x', { num: 1, den: 2 }]]), new Map([['x', { num: 2, den: 2 }]]), o),
  ],
  ['ratioEstimate', (o) => ratioEstimate([1, 2], [2, 2], { denominator: d, ...o })],
];

describe('bootstrap settings', () => {
  it('default to a 95% interval, 10,000 resamples and seed 0', () => {
    expect(bootstrapSettings({}, 'f')).toEqual({ level: 0.95, resamples: 10_000, seed: 0 });
    expect(bootstrapSettings({ level: 0.9, resamples: 7, seed: 3 }, 'f')).toEqual({
      level: 0.9,
      resamples: 7,
      seed: 3,
    });
  });

  it.each(ESTIMATORS)('%s refuses a level outside (0, 1) and resamples that are not a whole number ≥ 1', (name, f) => {
    expect(() => f({ level: 1 })).toThrow(new RangeError(`${name}: level must be in (0, 1), got 1`));
    expect(() => f({ level: 0 })).toThrow(`${name}: level must be in (0, 1), got 0`);
    expect(() => f({ resamples: 0 })).toThrow(`${name}: resamples must be an integer ≥ 1, got 0`);
    expect(() => f({ resamples: 2.5 })).toThrow(`${name}: resamples must be an integer ≥ 1, got 2.5`);
    expect(() => f({ level: 0.9, resamples: 50 })).not.toThrow();
  });

  it('the defaults reach the estimate', () => {
    const p = pairedRatioDifference(new Map([['x', { num: 1, den: 2 }]]), new Map([['x', { num: 2, den: 2 }]]));
    expect([p.level, p.resamples, p.seed]).toEqual([0.95, 10_000, 0]);
    expect(bootstrapRate([1, 0, 1], { denominator: d }).level).toBe(0.95);
  });
});
