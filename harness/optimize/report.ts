import { SIMULATOR_NOTICE } from '../report/summary.ts';
import { estimateRate, pairedCompare, type MetricEstimate, type PairedComparison } from '../stats/index.ts';
import { lineChart } from './chart.ts';
import type { EventLine } from './log.ts';
import type { Splits } from './splits.ts';
import type { Candidate, ProgressPoint, Tokens } from './types.ts';
import { outsideReferenceRunners, resolveCell, TOOLHOP_TEAM_DEFAULTS } from '../toolhop/grid.ts';
import type { Comm, Topology } from '../toolhop/settings.ts';

/**
 * The optimization's report: seed vs best on validation with CIs and a paired test, the same on held-out rows when
 * they were run, validation score against rollouts spent, the lineage of the best candidate, every candidate with
 * its parent and scores, and the tokens of the task and reflection models. Pure: the run's state in, JSON and
 * Markdown out. A simulator run says so at the top (and that its models are calibration fixtures).
 */
export interface ReportInput {
  method: 'gepa' | 'mipro';
  suite: string;
  topology: string;
  agents: number | null;
  roles: string[];
  answerer: string | null;
  taskModel: string;
  taskEndpoint: string | null;
  reflectionModel: string;
  reflectionEndpoint: string | null;
  simulated: boolean;
  dataset: { file: string; sha256: string; origin?: string };
  splits: Splits;
  budget: number;
  spent: number;
  seed: number;
  stopReason: string;
  steps: number;
  resumed: boolean;
  replayed: number;
  harnessFailure: string | null;
  candidates: Candidate[];
  valScores: (id: string) => ReadonlyMap<string, number> | undefined;
  progress: ProgressPoint[];
  events: readonly EventLine[];
  seedId: string;
  bestId: string;
  heldout: { rows: string[]; seed: ReadonlyMap<string, number>; best: ReadonlyMap<string, number> } | null;
  tokens: { task: Tokens; taskRollouts: number; reflection: Tokens; reflectionCalls: number };
  outDir: string;
  config: Record<string, unknown>;
}

export interface CandidateRow {
  id: string;
  origin: Candidate['origin'];
  parents: string[];
  role: string | null;
  step: number;
  choice: Record<string, number> | null;
  minibatch: { parent: number[]; child: number[]; accepted: boolean } | null;
  val: number | null;
}

export interface OptimizeSummary {
  notice: string | null;
  /** The reference's rule: a cell outside the method's part of its experiment grid makes a non-conformant job. */
  conformance: { conformant: boolean; reasons: string[] };
  fixture: string | null;
  method: string;
  suite: string;
  topology: string;
  config: Record<string, unknown>;
  dataset: ReportInput['dataset'];
  splits: {
    train: number;
    val: number;
    heldout: number;
    pool: number;
    excluded_eval_ids: number;
    eval_overlap: string[];
  };
  budget: number;
  spent: number;
  stop_reason: string;
  harness_failure: string | null;
  steps: number;
  resumed: boolean;
  replayed_rollouts: number;
  seed: string;
  best: string;
  validation: { seed: MetricEstimate; best: MetricEstimate; comparison: PairedComparison };
  heldout: { seed: MetricEstimate; best: MetricEstimate; comparison: PairedComparison } | null;
  lineage: Array<{
    id: string;
    parents: string[];
    origin: string;
    role: string | null;
    step: number;
    val: number | null;
  }>;
  progress: ProgressPoint[];
  tokens: { task: Tokens & { rollouts: number }; reflection: Tokens & { calls: number } };
  candidates: CandidateRow[];
}

const FIXTURE_NOTE =
  'The task policy sim:trait and the reflection model sim:reflect are calibration fixtures of the optimizer (a row is solved ' +
  "more often when its role prompt carries an instruction about the row's hidden trait, and sim:reflect writes such " +
  'instructions from feedback about failing rows). They show that the optimizer finds what is there to find; they say ' +
  'nothing about any language model.';

export function buildSummary(r: ReportInput): OptimizeSummary {
  const scores = (id: string, rows: readonly string[]) => {
    const s = r.valScores(id);
    return new Map(rows.map((row) => [row, s?.get(row) ?? 0]));
  };
  const est = (m: ReadonlyMap<string, number>, what: string) =>
    estimateRate([...m.values()], { denominator: what, seed: r.seed });
  const seedVal = scores(r.seedId, r.splits.val);
  const bestVal = scores(r.bestId, r.splits.val);
  const byId = new Map(r.candidates.map((c) => [c.id, c]));
  const minibatch = new Map<string, CandidateRow['minibatch']>();
  for (const e of r.events) {
    const d = e.data as Record<string, unknown>;
    if (e.kind === 'step' && typeof d.child === 'string')
      minibatch.set(d.child, {
        parent: d.parent_scores as number[],
        child: d.child_scores as number[],
        accepted: d.accepted as boolean,
      });
    if (e.kind === 'merge' && typeof d.merged === 'string')
      minibatch.set(d.merged, {
        parent: [Math.max(d.a_score as number, d.b_score as number)],
        child: [d.merged_score as number],
        accepted: d.accepted as boolean,
      });
  }
  const valOf = (id: string) => {
    const s = r.valScores(id);
    return s ? [...s.values()].reduce((a, b) => a + b, 0) / s.size : null;
  };
  const lineage: OptimizeSummary['lineage'] = [];
  for (let c = byId.get(r.bestId); c; c = c.parents[0] ? byId.get(c.parents[0]) : undefined) {
    lineage.unshift({ id: c.id, parents: c.parents, origin: c.origin, role: c.role, step: c.step, val: valOf(c.id) });
    if (lineage.length > r.candidates.length) break;
  }
  const heldout = r.heldout
    ? {
        seed: est(r.heldout.seed, 'held-out rows'),
        best: est(r.heldout.best, 'held-out rows'),
        comparison: pairedCompare(r.heldout.seed, r.heldout.best, { metric: 'accuracy', seed: r.seed }),
      }
    : null;
  return {
    notice: r.simulated ? SIMULATOR_NOTICE : null,
    conformance: conformanceOf(r.config),
    fixture:
      /^sim:(trait|reflect)\b/.test(r.taskModel) || /^sim:reflect\b/.test(r.reflectionModel) ? FIXTURE_NOTE : null,
    method: r.method,
    suite: r.suite,
    topology: r.topology,
    config: r.config,
    dataset: r.dataset,
    splits: {
      train: r.splits.train.length,
      val: r.splits.val.length,
      heldout: r.splits.heldout.length,
      pool: r.splits.pool,
      excluded_eval_ids: r.splits.excludedEvalIds.length,
      eval_overlap: r.splits.evalOverlap,
    },
    budget: r.budget,
    spent: r.spent,
    stop_reason: r.stopReason,
    harness_failure: r.harnessFailure,
    steps: r.steps,
    resumed: r.resumed,
    replayed_rollouts: r.replayed,
    seed: r.seedId,
    best: r.bestId,
    validation: {
      seed: est(seedVal, 'validation rows'),
      best: est(bestVal, 'validation rows'),
      comparison: pairedCompare(seedVal, bestVal, { metric: 'accuracy', seed: r.seed }),
    },
    heldout,
    lineage,
    progress: r.progress,
    tokens: {
      task: { ...r.tokens.task, rollouts: r.tokens.taskRollouts },
      reflection: { ...r.tokens.reflection, calls: r.tokens.reflectionCalls },
    },
    candidates: r.candidates.map((c) => ({
      id: c.id,
      origin: c.origin,
      parents: c.parents,
      role: c.role,
      step: c.step,
      choice: c.choice ?? null,
      minibatch: minibatch.get(c.id) ?? null,
      val: valOf(c.id),
    })),
  };
}

/** The progress chart: every validated candidate, and the best validation score so far, against rollouts spent. */
export function progressChart(s: OptimizeSummary): string {
  return lineChart(
    s.progress.map((p) => ({ x: p.spent, y: p.val, label: p.candidate })),
    s.progress.map((p) => ({ x: p.spent, y: p.best })),
    {
      title: `${s.method.toUpperCase()} on ${s.suite} / ${s.topology}: validation accuracy against rollouts spent`,
      xLabel: `rollouts spent (budget ${s.budget})`,
      yLabel: 'validation accuracy',
      xMax: s.budget,
      reference: { value: s.validation.seed.value, label: `seed ${s.validation.seed.value.toFixed(3)}` },
    },
  );
}

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const ci = (m: MetricEstimate) => `[${f3(m.lo)}, ${f3(m.hi)}]`;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${f3(x)}`;

function compareLine(c: PairedComparison): string {
  const mc = c.mcnemar
    ? `; ${c.mcnemar.b01} rows gained, ${c.mcnemar.b10} lost (exact McNemar p = ${c.pValue.toPrecision(3)})`
    : `; p = ${c.pValue.toPrecision(3)}`;
  return `Paired difference (best − seed) ${signed(c.diff)}, 95% CI [${f3(c.lo)}, ${f3(c.hi)}], n = ${c.n}${mc}: **${c.verdict}**.`;
}

export function renderReport(s: OptimizeSummary, outDir: string): string {
  const out: string[] = [];
  out.push(
    `# toolgauge optimize · ${s.method.toUpperCase()} · ${s.suite === 'toolhop' ? 'ToolHop' : s.suite} · ${s.topology}`,
    '',
  );
  if (s.notice) out.push(`> **${s.notice}**`, '');
  if (s.fixture) out.push(`> ${s.fixture}`, '');
  if (!s.conformance.conformant)
    out.push(
      `> **Non-conformant job** (run with \`--allow-any-cell\`): ${s.conformance.reasons.join('; ')}. The reference's aggregation skips such jobs unless asked.`,
      '',
    );
  if (s.harness_failure)
    out.push(
      `> **Stopped early at a harness error:** ${s.harness_failure} Fix the endpoint and rerun with \`--resume\`; nothing finished is lost.`,
      '',
    );
  const cfg = s.config as Record<string, unknown>;
  out.push('| | |', '|---|---|');
  const row = (k: string, v: unknown) => out.push(`| ${k} | ${String(v).replace(/\|/g, '\\|')} |`);
  row('method', s.method);
  row(
    'topology',
    `${s.topology}${cfg.agents ? ` (${cfg.agents} agents)` : ''}; mutable roles: ${(cfg.roles as string[] | undefined)?.join(', ') ?? ''}`,
  );
  row('task model', `${cfg.model}${cfg.base_url ? ` at ${cfg.base_url}` : ' (simulator)'}`);
  row('reflection model', `${cfg.reflection_model}${cfg.reflection_base_url ? ` at ${cfg.reflection_base_url}` : ''}`);
  row('data', `${s.dataset.origin ?? s.dataset.file} (sha256 ${s.dataset.sha256.slice(0, 12)}…)`);
  row(
    'splits',
    `train ${s.splits.train}, validation ${s.splits.val}, held out ${s.splits.heldout} (pool ${s.splits.pool}; ${s.splits.excluded_eval_ids} eval-id rows kept out${s.splits.eval_overlap.length ? `; **${s.splits.eval_overlap.length} eval ids used (--allow-eval-ids)**` : ''}) — ids in splits.json`,
  );
  row('seed', cfg.seed);
  row('cell', s.conformance.conformant ? "in the method's part of the reference's grid" : 'non-conformant (off-grid)');
  row('budget', `${s.spent} of ${s.budget} rollouts spent; ${s.steps} steps; stopped: ${s.stop_reason}`);
  if (s.resumed) row('resumed', `yes: ${s.replayed_rollouts} rollouts taken from the log`);
  out.push('');

  out.push('## Seed vs best on validation', '');
  out.push('| candidate | accuracy | 95% CI | n |', '|---|---|---|---|');
  out.push(`| seed ${s.seed} | ${f3(s.validation.seed.value)} | ${ci(s.validation.seed)} | ${s.validation.seed.n} |`);
  out.push(`| best ${s.best} | ${f3(s.validation.best.value)} | ${ci(s.validation.best)} | ${s.validation.best.n} |`);
  out.push('', compareLine(s.validation.comparison), '');
  out.push(
    'The best candidate was chosen for its validation score, so its validation number is optimistic: judge it on rows the search never saw' +
      (s.heldout ? ' (below).' : ' (see the commands at the end).'),
    '',
  );
  if (s.heldout) {
    out.push('## Held-out rows (never seen by the search)', '');
    out.push('| candidate | accuracy | 95% CI | n |', '|---|---|---|---|');
    out.push(`| seed ${s.seed} | ${f3(s.heldout.seed.value)} | ${ci(s.heldout.seed)} | ${s.heldout.seed.n} |`);
    out.push(`| best ${s.best} | ${f3(s.heldout.best.value)} | ${ci(s.heldout.best)} | ${s.heldout.best.n} |`);
    out.push('', compareLine(s.heldout.comparison), '');
  }

  out.push(
    '## Validation accuracy against rollouts spent',
    '',
    '![validation accuracy against rollouts spent](charts/progress.svg)',
    '',
  );
  out.push('| rollouts spent | candidate | validation | best so far |', '|---|---|---|---|');
  for (const p of s.progress)
    out.push(`| ${p.spent} | ${p.candidate} | ${f3(p.val)} | ${f3(p.best)} (${p.bestCandidate}) |`);
  out.push('');

  out.push('## Lineage of the best candidate', '');
  s.lineage.forEach((l, i) => {
    const how =
      l.origin === 'seed'
        ? 'the seed prompts'
        : l.origin === 'merge'
          ? `merge of ${l.parents.join(' and ')}`
          : l.origin === 'proposal'
            ? `a combination of proposed instructions (trial ${l.step})`
            : `${l.parents[0]} with \`${l.role}\` rewritten by reflection at step ${l.step}`;
    const mb = s.candidates.find((c) => c.id === l.id)?.minibatch;
    out.push(
      `${i + 1}. **${l.id}** — ${how}${mb ? ` (minibatch ${sum(mb.parent)} → ${sum(mb.child)})` : ''}; validation ${l.val === null ? '–' : f3(l.val)}`,
    );
  });
  out.push('', `The best prompts are in \`${outDir}/best/\` (the seed layout: \`best/${s.topology}/<role>.txt\`).`, '');

  out.push('## Tokens', '');
  out.push('| model | requests | prompt | completion | total |', '|---|---|---|---|---|');
  out.push(
    `| task (${cfg.model}) | ${s.tokens.task.rollouts} rollouts | ${s.tokens.task.prompt} | ${s.tokens.task.completion} | ${s.tokens.task.total} |`,
  );
  out.push(
    `| reflection (${cfg.reflection_model}) | ${s.tokens.reflection.calls} calls | ${s.tokens.reflection.prompt} | ${s.tokens.reflection.completion} | ${s.tokens.reflection.total} |`,
  );
  out.push('');

  out.push('## Candidates', '');
  out.push(
    '| id | origin | parents | role | step | minibatch parent → child | accepted | validation |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const c of s.candidates) {
    const mb = c.minibatch ? `${c.minibatch.parent.join('')} → ${c.minibatch.child.join('')}` : '';
    const role =
      c.role ??
      (c.choice
        ? Object.entries(c.choice)
            .map(([r, k]) => `${r}:${k}`)
            .join(' ')
        : '');
    out.push(
      `| ${c.id} | ${c.origin} | ${c.parents.join(', ')} | ${role} | ${c.step} | ${mb} | ${c.minibatch ? (c.minibatch.accepted ? 'yes' : 'no') : ''} | ${c.val === null ? '' : f3(c.val)} |`,
    );
  }
  out.push(
    '',
    "Every candidate's prompts are in `candidates/<id>/`, every rollout, reflection prompt and answer in `log.jsonl`.",
    '',
  );

  out.push('## Judge the optimised prompts on other rows', '');
  const data = cfg.data ? ` --data ${cfg.data}` : '';
  const team = `${cfg.agents ? ` --agents ${cfg.agents}` : ''}${cfg.rounds ? ` --rounds ${cfg.rounds}` : ''}${cfg.comm && cfg.comm !== 'freeform' ? ` --comm ${cfg.comm}` : ''}`;
  // The optimised cell may be one no runner of the reference runs: the command must still run it.
  const cell =
    s.topology in TOOLHOP_TEAM_DEFAULTS || s.topology === 'single'
      ? resolveCell({
          topology: s.topology as Topology,
          teamSize: (cfg.agents as number | null) ?? undefined,
          rounds: (cfg.rounds as number | null) ?? undefined,
          comm: (cfg.comm as Comm | null) ?? undefined,
        })
      : null;
  const anyCell = cell && outsideReferenceRunners(cell) ? ' --allow-any-cell' : '';
  const base = `toolgauge toolhop --topology ${s.topology}${team}${data} --model ${cfg.model}${cfg.base_url ? ` --base-url ${cfg.base_url}` : ''} --only "$(cat ${outDir}/heldout-ids.txt)"${anyCell}`;
  if (!s.splits.heldout)
    out.push(
      'Every row of the pool is in train or validation: there are no held-out rows left; use other data (`--data`).',
      '',
    );
  out.push(
    '```sh',
    `TOOLHOP_ALLOW_DATASET_EXEC=1 ${base} --prompts ${outDir}/candidates/${s.seed} --out-dir ${outDir}/eval/seed`,
    `TOOLHOP_ALLOW_DATASET_EXEC=1 ${base} --prompts ${outDir}/best --out-dir ${outDir}/eval/best`,
    `toolgauge report ${outDir}/eval/seed ${outDir}/eval/best --compare`,
    '```',
    '',
  );
  return out.join('\n');
}

/** Non-conformant when the run's configuration records an off-grid cell (run.ts, `off_grid`). */
function conformanceOf(config: Record<string, unknown>): OptimizeSummary['conformance'] {
  const off = typeof config.off_grid === 'string' ? config.off_grid : null;
  return off ? { conformant: false, reasons: [`off-grid cell: ${off}`] } : { conformant: true, reasons: [] };
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
