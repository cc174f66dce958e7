// One row of a paired comparison as it is shown: `report --compare`'s Markdown table and the viewer's table
// (the page is browser code, bundled: this module imports nothing at run time).
import type { PairedComparison } from '../stats/index.ts';

/** A compared metric in plain fields (the viewer's page data holds these). */
export interface ComparisonRow {
  metric: string;
  baseline: number;
  candidate: number;
  diff: number;
  lo: number;
  hi: number;
  test: string;
  /** McNemar's discordant pairs `gains/losses`; null when the data are not 0/1. */
  discordant: string | null;
  /** Holm-corrected p; null when there is none (no shared instances). */
  pAdjusted: number | null;
  verdict: string;
}

/** The columns of both tables, up to the verdict (the report adds Toolhound's rule after it). */
export const COMPARISON_HEAD: readonly string[] = [
  'metric',
  'baseline',
  'candidate',
  'difference [95% CI]',
  'test',
  'discordant (gain/loss)',
  'p (Holm)',
  'verdict',
];

export function comparisonRow(r: PairedComparison): ComparisonRow {
  return {
    metric: r.metric,
    baseline: r.meanA,
    candidate: r.meanB,
    diff: r.diff,
    lo: r.lo,
    hi: r.hi,
    test: r.test,
    discordant: r.mcnemar ? `${r.mcnemar.b01}/${r.mcnemar.b10}` : null,
    pAdjusted: Number.isNaN(r.pAdjusted) ? null : r.pAdjusted,
    verdict: r.verdict,
  };
}

/** `+0.125`, `-0.050`; `—` for NaN. */
export function signed(x: number): string {
  if (Number.isNaN(x)) return '—';
  return `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
}

/** The row's cells before the verdict, as text (each table shows the verdict its own way). */
export function comparisonCells(r: ComparisonRow): string[] {
  return [
    r.metric,
    r.baseline.toFixed(3),
    r.candidate.toFixed(3),
    `${signed(r.diff)} [${signed(r.lo)}, ${signed(r.hi)}]`,
    r.test,
    r.discordant ?? '—',
    r.pAdjusted === null ? '—' : r.pAdjusted.toPrecision(3),
  ];
}
