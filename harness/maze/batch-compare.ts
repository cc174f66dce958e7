// Paired comparisons between the models of one `toolgauge maze --models …` batch, over the task × mode runs they
// share: per mode, the TSR difference (paired bootstrap CI of the mean difference of per-task outcomes, trials
// averaged; exact McNemar test with one trial, sign-flip otherwise; Holm over the batch's family) and the PRR
// difference (paired bootstrap CI of the difference of pooled ratios, harness/stats/paired-ratio.ts).
// Pure: the models' journals in, a JSON-ready object and its Markdown out (docs/maze-runs.md).

import { table } from '../report/markdown.ts';
import { compareMany, pairedRatioDifference, type PairedComparison, type RatioUnit } from '../stats/index.ts';
import type { MazeMeta } from './meta.ts';
import { MODES, type Mode } from './task.ts';
import { pushTo } from '../core/push-to.ts';

export interface BatchModel {
  label: string;
  model: string;
  /** The model's results folder. */
  dir: string;
  /** complete: its run finished without a harness error; failed: not a result (kept for `--resume`). */
  status: 'complete' | 'failed';
  attempts: number;
  /** Why it failed (the last attempt's error, or the harness errors counted). */
  reason?: string;
  /** Its run's gate, when one was given. */
  gate?: boolean;
  runs?: number;
}

export interface ModeComparison {
  a: string;
  b: string;
  mode: Mode;
  tsr: {
    n: number;
    a: number | null;
    b: number | null;
    diff: number | null;
    lo: number | null;
    hi: number | null;
    test: string;
    p: number | null;
    p_holm: number | null;
    verdict: string;
    only_in_a: number;
    only_in_b: number;
  };
  prr: {
    n: number;
    a: number | null;
    b: number | null;
    diff: number | null;
    lo: number | null;
    hi: number | null;
    dropped_resamples: number;
  };
}

export interface BatchComparison {
  level: number;
  seed: number;
  resamples: number;
  pairs: ModeComparison[];
}

const num = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** Per mode: task → mean pass over its trials, and task → (hit ∧ pass runs, hit runs). A run with an error counts as failed. */
function outcomesOf(metas: readonly MazeMeta[]): Map<Mode, { tsr: Map<string, number>; prr: Map<string, RatioUnit> }> {
  const runs = new Map<Mode, Map<string, MazeMeta[]>>();
  for (const m of metas) {
    const byTask = runs.get(m.mode) ?? new Map<string, MazeMeta[]>();
    pushTo(byTask, m.task_id, m);
    runs.set(m.mode, byTask);
  }
  const out = new Map<Mode, { tsr: Map<string, number>; prr: Map<string, RatioUnit> }>();
  for (const [mode, byTask] of runs) {
    const tsr = new Map<string, number>();
    const prr = new Map<string, RatioUnit>();
    for (const [task, ms] of byTask) {
      const passed = (m: MazeMeta) => m.pass && !m.error;
      tsr.set(task, ms.filter(passed).length / ms.length);
      prr.set(task, { num: ms.filter((m) => m.hit && passed(m)).length, den: ms.filter((m) => m.hit).length });
    }
    out.set(mode, { tsr, prr });
  }
  return out;
}

/** Every pair of models (in the batch's order: a before b, the difference is b − a), per mode both ran. */
export function compareBatch(
  models: ReadonlyArray<{ label: string; metas: readonly MazeMeta[] }>,
  opts: { seed?: number; resamples?: number; level?: number } = {},
): BatchComparison {
  const seed = opts.seed ?? 0;
  const resamples = opts.resamples ?? 10_000;
  const level = opts.level ?? 0.95;
  const outcomes = models.map((m) => ({ label: m.label, by: outcomesOf(m.metas) }));
  const family: Array<{
    a: string;
    b: string;
    mode: Mode;
    metric: string;
    ma: Map<string, number>;
    mb: Map<string, number>;
    pa: Map<string, RatioUnit>;
    pb: Map<string, RatioUnit>;
  }> = [];
  for (let i = 0; i < outcomes.length; i++) {
    for (let j = i + 1; j < outcomes.length; j++) {
      const A = outcomes[i]!;
      const B = outcomes[j]!;
      for (const mode of MODES) {
        const oa = A.by.get(mode);
        const ob = B.by.get(mode);
        if (!oa || !ob) continue;
        family.push({
          a: A.label,
          b: B.label,
          mode,
          metric: `tsr.${mode} ${B.label} − ${A.label}`,
          ma: oa.tsr,
          mb: ob.tsr,
          pa: oa.prr,
          pb: ob.prr,
        });
      }
    }
  }
  // Holm over every TSR comparison of the batch: more models and modes do not mean more chances of a false "credible".
  const tsr: PairedComparison[] = compareMany(
    family.map((f) => ({ metric: f.metric, a: f.ma, b: f.mb })),
    { seed, resamples, alpha: 1 - level },
  );
  const pairs = family.map((f, k): ModeComparison => {
    const t = tsr[k]!;
    const p = pairedRatioDifference(f.pa, f.pb, { seed, resamples, level });
    return {
      a: f.a,
      b: f.b,
      mode: f.mode,
      tsr: {
        n: t.n,
        a: num(t.meanA),
        b: num(t.meanB),
        diff: num(t.diff),
        lo: num(t.lo),
        hi: num(t.hi),
        test: t.test,
        p: num(t.pValue),
        p_holm: num(t.pAdjusted),
        verdict: t.verdict,
        only_in_a: t.onlyInA,
        only_in_b: t.onlyInB,
      },
      prr: {
        n: p.n,
        a: num(p.valueA),
        b: num(p.valueB),
        diff: num(p.diff),
        lo: num(p.lo),
        hi: num(p.hi),
        dropped_resamples: p.dropped,
      },
    };
  });
  return { level, seed, resamples, pairs };
}

const f3 = (x: number | null) => (x === null ? '—' : x.toFixed(3));
const signed = (x: number | null) => (x === null ? '—' : `${x >= 0 ? '+' : ''}${x.toFixed(3)}`);
const ci = (lo: number | null, hi: number | null) =>
  lo === null || hi === null ? '—' : `[${signed(lo)}, ${signed(hi)}]`;

/** The batch report: which models are results, which are not (and why), and the paired comparisons. */
export function batchMarkdown(b: {
  agent: string;
  models: readonly BatchModel[];
  comparison: BatchComparison;
  notice?: string;
}): string {
  const parts = [`# Maze batch — agent ${b.agent}`, ''];
  if (b.notice) parts.push(`> ${b.notice}`, '');
  parts.push(
    '## Models',
    '',
    table(
      ['model', 'status', 'attempts', 'runs', 'folder', 'note'],
      b.models.map((m) => [
        m.label,
        m.status === 'complete' ? (m.gate === false ? 'complete (gate failed)' : 'complete') : 'FAILED — not a result',
        m.attempts,
        m.runs ?? '—',
        m.dir,
        m.reason ?? '',
      ]),
    ),
    '',
  );
  const failed = b.models.filter((m) => m.status === 'failed');
  if (failed.length)
    parts.push(
      `Not compared: ${failed.map((m) => m.label).join(', ')} (a failed model's folder is kept for \`--resume\`; its files are not a result).`,
      '',
    );
  parts.push('## Paired comparisons (b − a, same task × mode runs)', '');
  if (!b.comparison.pairs.length) parts.push('Fewer than two complete models: nothing to compare.', '');
  else {
    parts.push(
      table(
        [
          'a',
          'b',
          'mode',
          'n',
          'TSR a',
          'TSR b',
          'ΔTSR [CI]',
          'p (Holm)',
          'verdict',
          'PRR a',
          'PRR b',
          'ΔPRR [CI]',
          'hit tasks',
        ],
        b.comparison.pairs.map((p) => [
          p.a,
          p.b,
          p.mode,
          p.tsr.n,
          f3(p.tsr.a),
          f3(p.tsr.b),
          `${signed(p.tsr.diff)} ${ci(p.tsr.lo, p.tsr.hi)}`,
          f3(p.tsr.p_holm),
          p.tsr.verdict,
          f3(p.prr.a),
          f3(p.prr.b),
          `${signed(p.prr.diff)} ${ci(p.prr.lo, p.prr.hi)}`,
          p.prr.n,
        ]),
      ),
      '',
      `ΔTSR: paired percentile bootstrap (${b.comparison.resamples} resamples, seed ${b.comparison.seed}) of the mean per-task difference (trials averaged), ${Math.round(b.comparison.level * 100)}% CI; p: exact McNemar (one trial) or paired sign-flip test, Holm-adjusted over every comparison in this table; "credible" needs both the adjusted p and the CI. ΔPRR: paired bootstrap of the difference of pooled PRRs (Σ hit∧pass / Σ hit over the shared tasks), resampling tasks for both models at once; CI only (no test).`,
      '',
    );
  }
  return parts.join('\n');
}
