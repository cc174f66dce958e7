// Cohen's kappa: the agreement of two raters on nominal labels beyond what chance would give, with a seeded
// percentile-bootstrap interval over the rated units.

import { Rng, deriveSeed } from '../core/rng.ts';
import { binomialDraw } from './binomial.ts';
import { bootstrapSettings } from './describe.ts';
import { percentileInterval } from './resample.ts';
import type { EstimateOptions, MetricEstimate } from './types.ts';

/** Rater A's labels on the rows, rater B's on the columns: `counts[i][j]` units got A = labels[i], B = labels[j]. */
export interface ConfusionTable {
  labels: string[];
  counts: number[][];
}

/**
 * The confusion table of labelled pairs. `labels` fixes the order (and may list labels nobody used); without it,
 * the labels seen, in order of first appearance. A pair with a label outside a given `labels` throws.
 */
export function confusionTable(
  pairs: ReadonlyArray<readonly [string, string]>,
  labels?: readonly string[],
): ConfusionTable {
  const order = labels ? [...labels] : [...new Set(pairs.flat())];
  const at = new Map(order.map((l, i) => [l, i]));
  if (at.size !== order.length) throw new RangeError('confusionTable: labels repeat');
  const counts = order.map(() => order.map(() => 0));
  for (const [a, b] of pairs) {
    const i = at.get(a);
    const j = at.get(b);
    if (i === undefined || j === undefined)
      throw new RangeError(`confusionTable: label '${i === undefined ? a : b}' is not one of ${order.join(', ')}`);
    counts[i]![j]!++;
  }
  return { labels: order, counts };
}

/**
 * Cohen's kappa of a square table of counts: (p_o − p_e) / (1 − p_e), p_o the share on the diagonal, p_e the
 * chance agreement Σ_i row_i·col_i / n². NaN when undefined: no units, or p_e = 1 (both raters used one and the
 * same label for every unit, so chance already explains all agreement).
 */
export function kappaOfCounts(counts: readonly (readonly number[])[]): number {
  const k = counts.length;
  let n = 0;
  let diag = 0;
  const rows = new Array<number>(k).fill(0);
  const cols = new Array<number>(k).fill(0);
  for (let i = 0; i < k; i++) {
    const row = counts[i]!;
    if (row.length !== k) throw new RangeError('kappaOfCounts: the table is not square');
    for (let j = 0; j < k; j++) {
      const c = row[j]!;
      if (!(c >= 0)) throw new RangeError(`kappaOfCounts: count [${i}][${j}] is ${c}`);
      n += c;
      rows[i]! += c;
      cols[j]! += c;
      if (i === j) diag += c;
    }
  }
  if (n === 0) return NaN;
  const po = diag / n;
  let pe = 0;
  for (let i = 0; i < k; i++) pe += (rows[i]! / n) * (cols[i]! / n);
  if (1 - pe <= 1e-12) return NaN;
  return (po - pe) / (1 - pe);
}

/** Cohen's kappa of labelled pairs (rater A, rater B). */
export function cohenKappa(pairs: ReadonlyArray<readonly [string, string]>): number {
  return kappaOfCounts(confusionTable(pairs).counts);
}

/** A kappa estimate: the MetricEstimate shape, plus how many resamples had no kappa (p_e = 1) and were left out. */
export interface KappaEstimate extends MetricEstimate {
  degenerate_resamples?: number;
}

/**
 * Cohen's kappa with a percentile-bootstrap interval over the units (the pairs). A resample of n units is a
 * Multinomial(n; cell shares) draw of the table's cells, drawn exactly as a chain of binomials (the same
 * distribution as drawing n pairs with replacement). Resamples whose kappa is undefined are left out of the
 * interval and counted. Seeded (default 0); depends only on the table, not on the pairs' order.
 * n = 0 → NaN everywhere; n = 1 or an undefined kappa → no interval.
 */
export function kappaEstimate(table: ConfusionTable, opts: EstimateOptions): KappaEstimate {
  const { level, resamples, seed } = bootstrapSettings(opts, 'kappaEstimate');
  const cells = table.counts.flat();
  const n = cells.reduce((a, b) => a + b, 0);
  const value = kappaOfCounts(table.counts);
  const none = { value, lo: NaN, hi: NaN, n, denominator: opts.denominator, method: 'none' as const, level };
  if (n < 2 || Number.isNaN(value)) return none;
  const k = table.labels.length;
  const rng = new Rng(deriveSeed(seed, 'bootstrap-kappa'));
  const stats: number[] = [];
  const draw = new Array<number>(cells.length);
  let degenerate = 0;
  for (let r = 0; r < resamples; r++) {
    let left = n;
    let mass = n;
    for (let c = 0; c < cells.length; c++) {
      const x = cells[c]!;
      const d =
        x === 0 || left === 0 ? 0 : c === cells.length - 1 || x === mass ? left : binomialDraw(left, x / mass, rng);
      draw[c] = d;
      left -= d;
      mass -= x;
    }
    const kr = kappaOfCounts(Array.from({ length: k }, (_, i) => draw.slice(i * k, i * k + k)));
    if (Number.isNaN(kr)) degenerate++;
    else stats.push(kr);
  }
  if (stats.length === 0) return none;
  const { lo, hi } = percentileInterval(Float64Array.from(stats), level);
  return {
    value,
    lo,
    hi,
    n,
    denominator: opts.denominator,
    method: 'bootstrap',
    level,
    seed,
    resamples,
    ...(degenerate ? { degenerate_resamples: degenerate } : {}),
  };
}
