// Maze metrics (docs/maze.md), per mode and per complexity × mode, from judged runs:
//   TSR = passes / runs · PRR = (hit ∧ pass) / hits · RC_mode = mean over ALL runs of the per-run RC
// (0 without a hit, 1 on hit ∧ fail, else 1 − C_oracle / max(C_act, C_oracle)). The per-run outcome arrays
// are kept so intervals can be recomputed or compared; the intervals come from harness/stats `estimateRate`
// (Wilson for small or lopsided 0/1 samples, seeded percentile bootstrap otherwise — RC is fractional, so it
// always gets the bootstrap).

import { deriveSeed } from '../core/rng.ts';
import { passMetrics } from '../report/aggregate.ts';
import { estimateRate, ratioEstimate, type MetricEstimate } from '../stats/index.ts';
import { FAILURE_REASONS, RECOVERIES, type MazeVerdict, type Recovery } from './judge.ts';
import { COMPLEXITIES, MODES, type Complexity, type Mode } from './task.ts';
import { pushTo } from '../core/push-to.ts';

export interface RunOutcome {
  task_id: string;
  complexity: Complexity;
  mode: Mode;
  pass: boolean;
  hit: boolean;
  rc: number;
  recovery: Recovery;
  failure_reason: string | null;
}

export function outcomeOf(v: MazeVerdict): RunOutcome {
  return {
    task_id: v.task_id,
    complexity: v.complexity,
    mode: v.mode,
    pass: v.pass,
    hit: v.hit,
    rc: v.rc,
    recovery: v.recovery,
    failure_reason: v.failure_reason,
  };
}

export interface ModeMetrics {
  runs: number;
  hits: number;
  passes: number;
  hit_passes: number;
  tsr: MetricEstimate;
  prr: MetricEstimate;
  rc: MetricEstimate;
  /**
   * Per-run outcome arrays in task-id order: tsr (1/0 per run), prr (1/0 per hit run), rc (per run). With trials,
   * one entry per task: its trials' mean (prr: its hit-and-pass runs over its hit runs, for tasks with a hit).
   */
  outcomes: { task_ids: string[]; tsr: number[]; prr: number[]; rc: number[] };
  /** With `--trials K` (K ≥ 2 for every task): pass@K and pass^K of the task's runs. */
  trials?: { k: number; pass_at_k: MetricEstimate; pass_hat_k: MetricEstimate };
  recovery: Record<Recovery, number>;
  failure_reasons: Record<string, number>;
}

export interface MazeMetrics {
  by_mode: Partial<Record<Mode, ModeMetrics>>;
  by_complexity: Partial<Record<Complexity, Partial<Record<Mode, ModeMetrics>>>>;
}

export interface MetricsOptions {
  /** Bootstrap seed (default 0); each metric derives its own. */
  seed?: number;
  resamples?: number;
}

export function modeMetrics(runs: readonly RunOutcome[], label: string, opts: MetricsOptions = {}): ModeMetrics {
  const sorted = [...runs].sort((a, b) => (a.task_id < b.task_id ? -1 : a.task_id > b.task_id ? 1 : 0));
  if (new Set(sorted.map((r) => r.task_id)).size < sorted.length) return trialMetrics(sorted, label, opts);
  const tsr: number[] = sorted.map((r) => (r.pass ? 1 : 0));
  const prr: number[] = sorted.filter((r) => r.hit).map((r) => (r.pass ? 1 : 0));
  const rc = sorted.map((r) => r.rc);
  const base = opts.seed ?? 0;
  const est = (xs: number[], what: string, denominator: string) =>
    estimateRate(xs, {
      denominator,
      seed: deriveSeed(base, 'maze', label, what),
      ...(opts.resamples ? { resamples: opts.resamples } : {}),
    });
  const recovery = Object.fromEntries(RECOVERIES.map((r) => [r, 0])) as Record<Recovery, number>;
  const failure_reasons: Record<string, number> = {};
  for (const r of sorted) {
    recovery[r.recovery]++;
    if (r.failure_reason) failure_reasons[r.failure_reason] = (failure_reasons[r.failure_reason] ?? 0) + 1;
  }
  return {
    runs: sorted.length,
    hits: prr.length,
    passes: tsr.reduce((a, b) => a + b, 0),
    hit_passes: prr.reduce((a, b) => a + b, 0),
    tsr: est(tsr, 'tsr', 'runs'),
    prr: est(prr, 'prr', 'runs with a perturbed result (hits)'),
    rc: est(rc, 'rc', 'runs'),
    outcomes: { task_ids: sorted.map((r) => r.task_id), tsr, prr, rc },
    recovery,
    failure_reasons,
  };
}

/**
 * The same metrics when tasks ran several trials: the unit is the task (trials of one task are correlated), so
 * each interval resamples tasks — TSR and RC from each task's mean over its trials, PRR as the pooled ratio
 * Σ(hit ∧ pass) / Σhit over the tasks with a hit (harness/stats ratioEstimate) — and n counts tasks.
 */
function trialMetrics(sorted: readonly RunOutcome[], label: string, opts: MetricsOptions): ModeMetrics {
  const byTask = new Map<string, RunOutcome[]>();
  for (const r of sorted) pushTo(byTask, r.task_id, r);
  const ids = [...byTask.keys()];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const tsr = ids.map((id) => mean(byTask.get(id)!.map((r) => (r.pass ? 1 : 0))));
  const rc = ids.map((id) => mean(byTask.get(id)!.map((r) => r.rc)));
  const hitIds = ids.filter((id) => byTask.get(id)!.some((r) => r.hit));
  const num = hitIds.map((id) => byTask.get(id)!.filter((r) => r.hit && r.pass).length);
  const den = hitIds.map((id) => byTask.get(id)!.filter((r) => r.hit).length);
  const base = opts.seed ?? 0;
  const seedOf = (what: string) => deriveSeed(base, 'maze', label, what);
  const res = opts.resamples ? { resamples: opts.resamples } : {};
  const recovery = Object.fromEntries(RECOVERIES.map((r) => [r, 0])) as Record<Recovery, number>;
  const failure_reasons: Record<string, number> = {};
  for (const r of sorted) {
    recovery[r.recovery]++;
    if (r.failure_reason) failure_reasons[r.failure_reason] = (failure_reasons[r.failure_reason] ?? 0) + 1;
  }
  const k = Math.min(...ids.map((id) => byTask.get(id)!.length));
  const out: ModeMetrics = {
    runs: sorted.length,
    hits: sorted.filter((r) => r.hit).length,
    passes: sorted.filter((r) => r.pass).length,
    hit_passes: sorted.filter((r) => r.hit && r.pass).length,
    tsr: estimateRate(tsr, { denominator: 'tasks (each the mean of its trials)', seed: seedOf('tsr'), ...res }),
    prr: ratioEstimate(num, den, {
      denominator: 'runs with a perturbed result (hits), pooled; tasks resampled',
      seed: seedOf('prr'),
      ...res,
    }),
    rc: estimateRate(rc, { denominator: 'tasks (each the mean of its trials)', seed: seedOf('rc'), ...res }),
    outcomes: { task_ids: ids, tsr, prr: hitIds.map((_, i) => num[i]! / den[i]!), rc },
    recovery,
    failure_reasons,
  };
  if (k > 1) {
    const pm = passMetrics(
      new Map(ids.map((id) => [id, byTask.get(id)!.map((r) => (r.pass ? 1 : 0))])),
      k,
      'tasks',
      seedOf('pass-k'),
    );
    out.trials = { k, pass_at_k: pm[`pass@${k}`]!, pass_hat_k: pm[`pass^${k}`]! };
  }
  return out;
}

export function computeMetrics(outcomes: readonly RunOutcome[], opts: MetricsOptions = {}): MazeMetrics {
  const by_mode: MazeMetrics['by_mode'] = {};
  const by_complexity: MazeMetrics['by_complexity'] = {};
  for (const m of MODES) {
    const rs = outcomes.filter((o) => o.mode === m);
    if (rs.length > 0) by_mode[m] = modeMetrics(rs, `all/${m}`, opts);
  }
  for (const c of COMPLEXITIES) {
    for (const m of MODES) {
      const rs = outcomes.filter((o) => o.complexity === c && o.mode === m);
      if (rs.length > 0) (by_complexity[c] ??= {})[m] = modeMetrics(rs, `${c}/${m}`, opts);
    }
  }
  return { by_mode, by_complexity };
}

/** Failure reasons × mode counts (rows only for reasons that occurred). */
export function failureTable(
  outcomes: readonly RunOutcome[],
): Array<{ failure_reason: string; total: number } & Partial<Record<Mode, number>>> {
  const rows: Array<{ failure_reason: string; total: number } & Partial<Record<Mode, number>>> = [];
  const reasons = [
    ...new Set([...FAILURE_REASONS, ...outcomes.map((o) => o.failure_reason).filter((r): r is string => !!r)]),
  ];
  for (const reason of reasons) {
    const hits = outcomes.filter((o) => o.failure_reason === reason);
    if (hits.length === 0) continue;
    const row: { failure_reason: string; total: number } & Partial<Record<Mode, number>> = {
      failure_reason: reason,
      total: hits.length,
    };
    for (const m of MODES) {
      const n = hits.filter((o) => o.mode === m).length;
      if (n > 0) row[m] = n;
    }
    rows.push(row);
  }
  return rows;
}

/**
 * The `summary.json` shape of docs/outputs.md: `metrics.<tsr|prr|rc>.<mode>` and
 * `breakdowns.complexity.<c>.<tsr|prr|rc>.<mode>`, each a MetricEstimate.
 */
export function summaryShape(m: MazeMetrics): {
  metrics: Record<'tsr' | 'prr' | 'rc', Partial<Record<Mode, MetricEstimate>>>;
  breakdowns: {
    complexity: Partial<Record<Complexity, Record<'tsr' | 'prr' | 'rc', Partial<Record<Mode, MetricEstimate>>>>>;
  };
} {
  const pick = (mm: Partial<Record<Mode, ModeMetrics>>) => {
    const out: Record<'tsr' | 'prr' | 'rc', Partial<Record<Mode, MetricEstimate>>> = { tsr: {}, prr: {}, rc: {} };
    const extra = out as Record<string, Partial<Record<Mode, MetricEstimate>>>;
    for (const [mode, x] of Object.entries(mm) as Array<[Mode, ModeMetrics]>) {
      out.tsr[mode] = x.tsr;
      out.prr[mode] = x.prr;
      out.rc[mode] = x.rc;
      // With trials: `pass@K.P0` and `pass^K.P0`, as the other suites name them.
      if (x.trials) {
        (extra[`pass@${x.trials.k}`] ??= {})[mode] = x.trials.pass_at_k;
        (extra[`pass^${x.trials.k}`] ??= {})[mode] = x.trials.pass_hat_k;
      }
    }
    return out;
  };
  const complexity: Partial<Record<Complexity, Record<'tsr' | 'prr' | 'rc', Partial<Record<Mode, MetricEstimate>>>>> =
    {};
  for (const [c, mm] of Object.entries(m.by_complexity) as Array<[Complexity, Partial<Record<Mode, ModeMetrics>>]>)
    complexity[c] = pick(mm);
  return { metrics: pick(m.by_mode), breakdowns: { complexity } };
}
