import { describe, expect, it } from 'vitest';
import { estimateBar } from './svg.ts';

describe('estimateBar', () => {
  it("is the estimate's value, interval and n; an empty bar when there is no estimate", () => {
    const e = { value: 0.5, lo: 0.25, hi: 0.75, n: 8, denominator: 'cases', method: 'wilson' as const, level: 0.95 };
    expect(estimateBar('acc', e)).toEqual({ label: 'acc', value: 0.5, lo: 0.25, hi: 0.75, n: 8 });
    expect(estimateBar('none', undefined)).toEqual({ label: 'none', value: null, lo: null, hi: null, n: 0 });
  });
  it('carries a note only when there is one', () => {
    expect(estimateBar('x', undefined, 'baseline').note).toBe('baseline');
    expect('note' in estimateBar('x', undefined, '')).toBe(false);
  });
});
