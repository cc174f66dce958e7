import { describe, expect, it } from 'vitest';
import type { PairedComparison } from '../stats/index.ts';
import { comparisonCells, comparisonRow } from './comparison-row.ts';

const compared = (over: Partial<PairedComparison>): PairedComparison => ({
  metric: 'accuracy',
  n: 40,
  onlyInA: 0,
  onlyInB: 0,
  meanA: 0.5,
  meanB: 0.625,
  diff: 0.125,
  lo: -0.05,
  hi: 0.3,
  level: 0.95,
  test: 'mcnemar_exact',
  pValue: 0.01,
  pAdjusted: 0.0123456,
  alpha: 0.05,
  verdict: 'no credible change',
  seed: 0,
  resamples: 1000,
  ...over,
});

describe('a compared metric as a table row', () => {
  it('shows means and the CI to three decimals, the difference signed, p to three figures, discordant gains/losses', () => {
    const row = comparisonRow(compared({ mcnemar: { b01: 7, b10: 2, pValue: 0.18 } }));
    expect(row.verdict).toBe('no credible change');
    expect(comparisonCells(row)).toEqual([
      'accuracy',
      '0.500',
      '0.625',
      '+0.125 [-0.050, +0.300]',
      'mcnemar_exact',
      '7/2',
      '0.0123',
    ]);
  });

  it('shows a dash where there is no value: no McNemar, no p, no interval', () => {
    const row = comparisonRow(
      compared({ test: 'none', diff: Number.NaN, lo: Number.NaN, hi: Number.NaN, pAdjusted: Number.NaN }),
    );
    expect(row).toMatchObject({ discordant: null, pAdjusted: null });
    expect(comparisonCells(row).slice(3)).toEqual(['— [—, —]', 'none', '—', '—']);
  });

  it('a zero difference is +0.000', () => {
    expect(comparisonCells(comparisonRow(compared({ diff: 0, lo: 0, hi: 0 })))[3]).toBe('+0.000 [+0.000, +0.000]');
  });
});
