/**
 * "Decode comparison" (free → constrained) and "Method comparison" (baseline → method) tables: two paired sets of
 * per-case outcomes from the same cases, every shared metric compared with pairedCompare, Holm over the table
 * (compareMany), each row worded by the metric's direction. Pure; markdown + data.
 */
import {
  compareMany,
  disjointCiRule,
  rulesAgree,
  type DisjointCiRule,
  type PairedComparison,
} from '../../stats/index.ts';
import { changeWord, directionOf, type ChangeWord, type Direction } from './direction.ts';

export interface Arm {
  /** "free", "constrained", "baseline", "pa_tool", a model label … */
  label: string;
  /** metric → case id → outcome (0/1 or a trial average). */
  outcomes: Record<string, ReadonlyMap<string, number>>;
}

export interface ComparisonRow {
  metric: string;
  direction: Direction;
  word: ChangeWord;
  paired: PairedComparison;
  /** Toolhound's rule (disjoint per-arm CIs) on the same cases, worded like `word`: reported beside it, never instead. */
  toolhound: DisjointCiRule & { word: ChangeWord; agrees: boolean };
}

export interface ComparisonTable {
  title: string;
  a: string;
  b: string;
  rows: ComparisonRow[];
  markdown: string;
}

export interface CompareOptions {
  title: string;
  /** Metrics in table order; default: every metric both arms have, in A's order. */
  metrics?: readonly string[];
  seed?: number;
  resamples?: number;
  alpha?: number;
  /** A note printed under the table (e.g. "simulator run: calibration, not a model result"). */
  note?: string;
}

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '—');
const sgn = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}` : '—');
const pv = (x: number) => (!Number.isFinite(x) ? '—' : x < 0.001 ? '<0.001' : x.toFixed(3));

export function compareArms(a: Arm, b: Arm, opts: CompareOptions): ComparisonTable {
  const names = (opts.metrics ?? Object.keys(a.outcomes)).filter((m) => a.outcomes[m] && b.outcomes[m]);
  const results = compareMany(
    names.map((m) => ({ metric: m, a: a.outcomes[m]!, b: b.outcomes[m]! })),
    {
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.resamples !== undefined ? { resamples: opts.resamples } : {}),
      ...(opts.alpha !== undefined ? { alpha: opts.alpha } : {}),
    },
  );
  const rows = results.map((paired): ComparisonRow => {
    const rule = disjointCiRule(a.outcomes[paired.metric]!, b.outcomes[paired.metric]!, {
      seed: paired.seed,
      resamples: paired.resamples,
      level: paired.level,
    });
    return {
      metric: paired.metric,
      direction: directionOf(paired.metric),
      word: changeWord(paired.metric, paired.verdict),
      paired,
      toolhound: {
        ...rule,
        word: changeWord(paired.metric, rule.verdict),
        agrees: rulesAgree(paired.verdict, rule.verdict),
      },
    };
  });
  const ci = (x: { lo: number; hi: number }) => (Number.isFinite(x.lo) ? `[${f3(x.lo)}, ${f3(x.hi)}]` : '—');
  const header = `| metric | better | ${a.label} | ${b.label} | Δ [${Math.round((rows[0]?.paired.level ?? 0.95) * 100)}% CI] | n | test | p (Holm) | verdict | Toolhound: CIs ${a.label} · ${b.label} | Toolhound's rule |`;
  const lines = [
    `### ${opts.title}`,
    '',
    header,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(({ metric, direction, word, paired: p, toolhound: t }) => {
      const test =
        p.test === 'mcnemar_exact'
          ? `McNemar ${p.mcnemar!.b01}↑/${p.mcnemar!.b10}↓`
          : p.test === 'sign_flip'
            ? 'sign-flip'
            : '—';
      return `| ${metric} | ${direction === 'higher_is_better' ? 'higher' : 'lower'} | ${f3(p.meanA)} | ${f3(p.meanB)} | ${sgn(p.diff)} [${sgn(p.lo)}, ${sgn(p.hi)}] | ${p.n} | ${test} | ${pv(p.pAdjusted)} | **${word}** | ${ci(t.a)} · ${ci(t.b)} | ${t.word}${t.agrees ? '' : ' ≠'} |`;
    }),
    '',
    `Paired on the cases both arms ran (${a.label} → ${b.label}); "improved"/"worse" follow each metric's direction; credible = Holm-adjusted p ≤ ${rows[0]?.paired.alpha ?? 0.05} and the CI of Δ excludes 0. The last two columns are Toolhound's rule on the same cases (credible when the two arms' own CIs are disjoint), for comparison only; ≠ marks a row where it disagrees with the verdict.`,
  ];
  // Counted on the first metric (accuracy: over every case): conditional readings pair fewer cases by design.
  const onlyA = rows[0]?.paired.onlyInA ?? 0;
  const onlyB = rows[0]?.paired.onlyInB ?? 0;
  if (onlyA || onlyB)
    lines.push(
      `Unpaired cases left out (${rows[0]!.metric}): ${onlyA} only in ${a.label}, ${onlyB} only in ${b.label}.`,
    );
  if (opts.note) lines.push('', opts.note);
  return { title: opts.title, a: a.label, b: b.label, rows, markdown: `${lines.join('\n')}\n` };
}

/** free → constrained, on the layers constrained decoding is meant to move (syntax) and the ones it should not (decision). */
export function decodeComparison(
  free: Arm,
  constrained: Arm,
  opts: Omit<CompareOptions, 'title'> & { title?: string } = {},
): ComparisonTable {
  return compareArms(free, constrained, {
    title: opts.title ?? `Decode comparison: ${free.label} → ${constrained.label}`,
    ...opts,
  });
}
