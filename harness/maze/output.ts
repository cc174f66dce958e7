// Maze output files (docs/maze.md), compatible with the ToolMaze layout:
//   <root>/<c1..c4>/inferences/<task>_<mode>_inference.json   what the agent did (trace, final answer)
//   <root>/<c1..c4>/evaluations/<task>_<mode>_eval.json       the judge's verdict
//   <root>/<c1..c4>/metrics/metrics_report_<timestamp>.json   TSR / PRR / RC per mode for that complexity
// where <root> = results/<model>/fc. Shapes are zod schemas; the timestamp is injected, never read from a clock.
// `recomputeFromFiles` rebuilds TSR / PRR / RC from the saved inference + evaluation files with its own code
// (hit and C_act from the inference trace, pass and C_oracle from the evaluation), so the in-memory metrics
// can be checked against what was written.

import { existsSync, readdirSync } from 'node:fs';
import { FileRefused, readTextChecked } from '../core/nofollow.ts';
import { join } from 'node:path';
import { z } from 'zod';
import { DataError, dataErrorFromZod } from '../core/errors.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import { Usage } from '../model/types.ts';
import type { MazeTraceEntry } from './engine.ts';
import { LlmJudgeRecord } from './llm-judge.ts';
import { judge, type JudgeMode, type MazeVerdict } from './judge.ts';
import { computeMetrics, type ModeMetrics, type RunOutcome } from './aggregate.ts';
import { COMPLEXITIES, MODES, taskToolNames, type Complexity, type MazeTask, type Mode } from './task.ts';

const ModeZ = z.enum(MODES);
const ComplexityZ = z.enum(COMPLEXITIES);
const StatusZ = z.enum(['clean', 'explicit_error', 'implicit_corruption', 'tool_error']);

export const TraceEntryZ = z.object({
  index: z.number().int().nonnegative(),
  call_id: z.string(),
  name: z.string(),
  arguments_json: z.string(),
  args: z.record(z.string(), z.unknown()).nullable(),
  result: z.record(z.string(), z.unknown()),
  status: StatusZ,
  error_kind: z.enum(['malformed_arguments', 'unknown_tool', 'invalid_arguments', 'invalid_use']).optional(),
  victim: z.object({ group: z.string(), node: z.string(), call_number: z.number().int() }).optional(),
});

export const InferenceFile = z.object({
  task_id: z.string(),
  complexity: ComplexityZ,
  mode: ModeZ,
  model: z.string(),
  query: z.string(),
  /** Agent-visible tool names. */
  tools: z.array(z.string()),
  trace: z.array(TraceEntryZ),
  final_answer: z.string().nullable(),
  turns: z.number().int().nonnegative(),
  stopped: z.string(),
  /** Endpoint / harness error for this instance (counted and reported, never silently "wrong"). */
  error: z.string().nullable(),
  messages: z.array(z.unknown()).optional(),
  /** `--trials K`: which trial (absent for trial 0). */
  trial: z.number().int().positive().optional(),
  /** Tokens over the run's model calls (absent in files written before it was recorded, and in local runs). */
  usage: Usage.optional(),
  /** `mcp` when the agent reached the tools over MCP (`--tool-transport mcp`); absent: in process. */
  tool_transport: z.literal('mcp').optional(),
});
export type InferenceFile = z.infer<typeof InferenceFile>;

export const EvaluationFile = z.object({
  task_id: z.string(),
  complexity: ComplexityZ,
  mode: ModeZ,
  model: z.string(),
  judge_mode: z.enum(['compat', 'strict']),
  pass: z.boolean(),
  failure_reason: z.string().nullable(),
  hit: z.boolean(),
  recovery: z.enum(['retry', 'switch', 'abort', 'none', 'unrecovered']),
  c_act: z.number().int().nonnegative(),
  c_oracle: z.number().int().nonnegative(),
  rc: z.number().min(0).max(1),
  trace_check: z.record(z.string(), z.unknown()),
  trial: z.number().int().positive().optional(),
  /** The LLM judge's verdict or error (`--judge-model`); absent when only the rule judge ran. */
  llm_judge: LlmJudgeRecord.optional(),
});
export type EvaluationFile = z.infer<typeof EvaluationFile>;

const EstimateZ = z.object({
  value: z.number().nullable(),
  lo: z.number().nullable(),
  hi: z.number().nullable(),
  n: z.number().int(),
  denominator: z.string(),
  method: z.string(),
  level: z.number(),
  seed: z.number().optional(),
  resamples: z.number().optional(),
});
const ModeReportZ = z.object({
  runs: z.number().int(),
  hits: z.number().int(),
  passes: z.number().int(),
  hit_passes: z.number().int(),
  tsr: EstimateZ,
  prr: EstimateZ,
  rc: EstimateZ,
  outcomes: z.object({
    task_ids: z.array(z.string()),
    tsr: z.array(z.number()),
    prr: z.array(z.number()),
    rc: z.array(z.number()),
  }),
  recovery: z.record(z.string(), z.number()),
  failure_reasons: z.record(z.string(), z.number()),
});
export const MetricsReportFile = z.object({
  model: z.string(),
  complexity: ComplexityZ,
  timestamp: z.string(),
  judge_mode: z.enum(['compat', 'strict']),
  /** `llm` when the LLM judge's verdicts decided these outcomes (`--verdict llm`); absent: the rule judge's. */
  verdict: z.literal('llm').optional(),
  per_mode: z.record(z.string(), ModeReportZ),
});
export type MetricsReportFile = z.infer<typeof MetricsReportFile>;

// ---- paths -------------------------------------------------------------------------------------------------

/** A model id as a directory name (`sim:oracle?seed=3` → `sim_oracle_seed_3`). */
export function modelDirName(model: string): string {
  return model.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'model';
}
export const mazeRoot = (resultsDir: string, model: string) => join(resultsDir, modelDirName(model), 'fc');
/** `--trials K`: trial 0 keeps ToolMaze's name, trial t ≥ 1 adds `_trial<t>` (ToolMaze runs one trial). */
const trialTag = (trial = 0) => (trial > 0 ? `_trial${trial}` : '');
export const inferencePath = (root: string, c: Complexity, taskId: string, mode: Mode, trial = 0) =>
  join(root, c, 'inferences', `${taskId}_${mode}${trialTag(trial)}_inference.json`);
export const evaluationPath = (root: string, c: Complexity, taskId: string, mode: Mode, trial = 0) =>
  join(root, c, 'evaluations', `${taskId}_${mode}${trialTag(trial)}_eval.json`);
export const metricsReportPath = (root: string, c: Complexity, timestamp: string) =>
  join(root, c, 'metrics', `metrics_report_${timestamp.replace(/[^0-9A-Za-z.-]+/g, '-')}.json`);

// ---- builders ----------------------------------------------------------------------------------------------

export interface RunRecord {
  trace: MazeTraceEntry[];
  finalAnswer: string | null;
  turns: number;
  stopped: string;
  error?: string | null;
  messages?: unknown[];
  usage?: Usage;
  trial?: number;
  toolTransport?: 'in-process' | 'mcp';
}

export function buildInference(task: MazeTask, mode: Mode, model: string, run: RunRecord): InferenceFile {
  return {
    task_id: task.id,
    complexity: task.complexity,
    mode,
    model,
    query: task.query,
    tools: taskToolNames(task),
    trace: run.trace,
    final_answer: run.finalAnswer,
    turns: run.turns,
    stopped: run.stopped,
    error: run.error ?? null,
    ...(run.messages ? { messages: run.messages } : {}),
    ...(run.usage ? { usage: run.usage } : {}),
    ...(run.trial ? { trial: run.trial } : {}),
    ...(run.toolTransport === 'mcp' ? { tool_transport: 'mcp' as const } : {}),
  };
}

export function buildEvaluation(v: MazeVerdict, model: string, trial = 0): EvaluationFile {
  return {
    task_id: v.task_id,
    complexity: v.complexity,
    mode: v.mode,
    model,
    judge_mode: v.judge_mode,
    pass: v.pass,
    failure_reason: v.failure_reason,
    hit: v.hit,
    recovery: v.recovery,
    c_act: v.c_act,
    c_oracle: v.c_oracle,
    rc: v.rc,
    trace_check: v.trace_check as unknown as Record<string, unknown>,
    ...(trial ? { trial } : {}),
  };
}

/** NaN (no data) becomes null so the file is valid JSON with an explicit "undefined". */
function jsonNumber(x: number | undefined): number | null {
  return x === undefined || !Number.isFinite(x) ? null : x;
}
function reportMode(m: ModeMetrics): z.infer<typeof ModeReportZ> {
  const est = (e: ModeMetrics['tsr']) => ({
    ...e,
    value: jsonNumber(e.value),
    lo: jsonNumber(e.lo),
    hi: jsonNumber(e.hi),
  });
  return { ...m, tsr: est(m.tsr), prr: est(m.prr), rc: est(m.rc) };
}

export function buildMetricsReport(
  model: string,
  complexity: Complexity,
  outcomes: readonly RunOutcome[],
  timestamp: string,
  judgeMode: JudgeMode,
  byLlm = false,
): MetricsReportFile {
  const m = computeMetrics(outcomes.filter((o) => o.complexity === complexity));
  const per_mode: MetricsReportFile['per_mode'] = {};
  for (const [mode, mm] of Object.entries(m.by_complexity[complexity] ?? {}) as Array<[Mode, ModeMetrics]>)
    per_mode[mode] = reportMode(mm);
  return {
    model,
    complexity,
    timestamp,
    judge_mode: judgeMode,
    ...(byLlm ? { verdict: 'llm' as const } : {}),
    per_mode,
  };
}

// ---- writers -----------------------------------------------------------------------------------------------

/** One metrics report per complexity present in `outcomes`; returns the paths written. */
export function writeMetricsReports(
  root: string,
  model: string,
  outcomes: readonly RunOutcome[],
  timestamp: string,
  judgeMode: JudgeMode,
  byLlm = false,
): string[] {
  const out: string[] = [];
  for (const c of COMPLEXITIES) {
    if (!outcomes.some((o) => o.complexity === c)) continue;
    const p = metricsReportPath(root, c, timestamp);
    writeFileAtomic(
      p,
      `${JSON.stringify(MetricsReportFile.parse(buildMetricsReport(model, c, outcomes, timestamp, judgeMode, byLlm)), null, 2)}\n`,
    );
    out.push(p);
  }
  return out;
}

// ---- recompute from files ----------------------------------------------------------------------------------

export interface RecomputedMode {
  runs: number;
  hits: number;
  passes: number;
  tsr: number | null;
  prr: number | null;
  rc: number | null;
}
export interface Recomputed {
  by_mode: Partial<Record<Mode, RecomputedMode>>;
  by_complexity: Partial<Record<Complexity, Partial<Record<Mode, RecomputedMode>>>>;
  /** Disagreements between the files (evaluation vs trace, or vs a re-judge when tasks are given). */
  discrepancies: string[];
  files: number;
}

function readJson<T>(path: string, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    const text = readTextChecked(path);
    if (text === null) throw new Error('no such file');
    raw = JSON.parse(text);
  } catch (e) {
    if (e instanceof FileRefused) throw e;
    throw new DataError(path, undefined, undefined, `invalid JSON: ${(e as Error).message}`);
  }
  const r = schema.safeParse(raw);
  if (!r.success) throw dataErrorFromZod(path, undefined, r.error);
  return r.data;
}

/**
 * Recompute TSR / PRR / RC from `<root>/<c>/{inferences,evaluations}`. Independent of the in-memory path:
 * hit and C_act come from the saved trace, pass and C_oracle from the evaluation, RC from ToolMaze's formula
 * (docs/maze.md),
 * the means are summed here. With `tasks`, each run is also re-judged from the inference file alone and a
 * different verdict is reported as a discrepancy.
 */
export function recomputeFromFiles(
  root: string,
  opts: { tasks?: readonly MazeTask[]; judgeMode?: JudgeMode } = {},
): Recomputed {
  type Row = { c: Complexity; mode: Mode; pass: boolean; hit: boolean; rc: number };
  const rows: Row[] = [];
  const discrepancies: string[] = [];
  const taskById = new Map((opts.tasks ?? []).map((t) => [t.id, t]));
  for (const c of COMPLEXITIES) {
    const idir = join(root, c, 'inferences');
    if (!existsSync(idir)) continue;
    for (const f of readdirSync(idir)
      .filter((x) => x.endsWith('_inference.json'))
      .sort()) {
      const inf = readJson(join(idir, f), InferenceFile);
      const ep = evaluationPath(root, c, inf.task_id, inf.mode, inf.trial);
      if (!existsSync(ep)) {
        discrepancies.push(`${inf.task_id} ${inf.mode}: no evaluation file`);
        continue;
      }
      const ev = readJson(ep, EvaluationFile);
      const firstHit = inf.trace.findIndex((e) => e.status === 'explicit_error' || e.status === 'implicit_corruption');
      const hit = firstHit >= 0;
      const cAct = hit ? inf.trace.length - firstHit : 0;
      const rc = !hit ? 0 : !ev.pass ? 1 : 1 - ev.c_oracle / Math.max(cAct, ev.c_oracle);
      if (ev.hit !== hit)
        discrepancies.push(`${inf.task_id} ${inf.mode}: evaluation says hit=${ev.hit}, trace says ${hit}`);
      if (ev.c_act !== cAct)
        discrepancies.push(`${inf.task_id} ${inf.mode}: evaluation c_act=${ev.c_act}, trace gives ${cAct}`);
      const task = taskById.get(inf.task_id);
      if (task) {
        const again = judge(task, inf.mode, inf.trace as MazeTraceEntry[], inf.final_answer, {
          mode: opts.judgeMode ?? ev.judge_mode,
        });
        if (again.pass !== ev.pass)
          discrepancies.push(`${inf.task_id} ${inf.mode}: re-judged pass=${again.pass}, file says ${ev.pass}`);
      }
      rows.push({ c, mode: inf.mode, pass: ev.pass, hit, rc });
    }
  }
  const agg = (rs: Row[]): RecomputedMode => {
    let passes = 0;
    let hits = 0;
    let hitPasses = 0;
    let rcSum = 0;
    for (const r of rs) {
      if (r.pass) passes++;
      if (r.hit) hits++;
      if (r.hit && r.pass) hitPasses++;
      rcSum += r.rc;
    }
    return {
      runs: rs.length,
      hits,
      passes,
      tsr: rs.length ? passes / rs.length : null,
      prr: hits ? hitPasses / hits : null,
      rc: rs.length ? rcSum / rs.length : null,
    };
  };
  const by_mode: Recomputed['by_mode'] = {};
  const by_complexity: Recomputed['by_complexity'] = {};
  for (const m of MODES) {
    const rs = rows.filter((r) => r.mode === m);
    if (rs.length) by_mode[m] = agg(rs);
    for (const c of COMPLEXITIES) {
      const rc = rs.filter((r) => r.c === c);
      if (rc.length) (by_complexity[c] ??= {})[m] = agg(rc);
    }
  }
  return { by_mode, by_complexity, discrepancies, files: rows.length };
}
