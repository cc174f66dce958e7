// The Maze judge: a pure function of (task, mode, trace, final answer). "compat" applies ToolMaze's rules
// (docs/maze.md), except that a C1 P2/P4 run must end with an abort phrase wherever the victim sits; "strict"
// additionally checks argument bindings on the completed path, that no corrupted value reaches a later argument or
// the answer, and the final answer's value.
//
// C_oracle — the cheapest recovery suffix, counted like C_act (tool results from the first hit, inclusive, to
// the end), derived from the task graph in step order starting at the step of the first hit:
//   · C1, permanent (P2/P4): 1 — the hit itself, then abort.
//   · C1, transient (P1/P3): 1 (hit) + 1 (retry of the victim) + the nodes after the victim on the chain.
//   · C2–C4, the slot of the first hit, victim choice v (the one the agent activated):
//       transient: 1 (hit) + |v| (retry of v's entry tool, then the rest of v's sub-chain);
//       permanent: 1 (hit) + min |c| over the other choices c (switch to the shortest clean alternative).
//   · each later fixed node: +1; each later perturbable slot (C4): it will be hit once too, so the same rule
//     with v = the choice the agent activated there, or — if it never touched that slot — the choice that makes
//     the rule cheapest.
// RC per run = 0 without a hit, 1 on hit ∧ fail, else 1 − C_oracle / max(C_act, C_oracle).

import { isPerturbed, type MazeTraceEntry } from './engine.ts';
import {
  isImplicit,
  isPermanent,
  isTransient,
  nodeIndex,
  resolveRef,
  type Answer,
  type MazeTask,
  type Mode,
  type TaskPath,
} from './task.ts';
import { VictimTracker, type Activation } from './victims.ts';

export type JudgeMode = 'compat' | 'strict';
export type Recovery = 'retry' | 'switch' | 'abort' | 'none' | 'unrecovered';
export const RECOVERIES: readonly Recovery[] = ['retry', 'switch', 'abort', 'none', 'unrecovered'];

export const FAILURE_REASONS = [
  'no_valid_path_completed',
  'victim_not_reached',
  'no_retry_or_switch',
  'continued_after_permanent_failure',
  'missing_abort_phrase',
  'binding_mismatch',
  'corrupted_value_propagated',
  'wrong_answer',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export interface RuleCheck {
  rule: string;
  ok: boolean;
  detail: string;
}

export interface TraceCheck {
  judge_mode: JudgeMode;
  rules: RuleCheck[];
  activated_victims: Array<{ group: string; tool: string; node: string; at: number }>;
  hit_indices: number[];
  first_hit: number | null;
  completed_paths: string[];
  winning_path: string | null;
}

export interface MazeVerdict {
  task_id: string;
  complexity: MazeTask['complexity'];
  mode: Mode;
  judge_mode: JudgeMode;
  pass: boolean;
  failure_reason: FailureReason | null;
  trace_check: TraceCheck;
  hit: boolean;
  recovery: Recovery;
  c_act: number;
  c_oracle: number;
  rc: number;
}

export const ABORT_PHRASES = [
  'task aborted',
  'aborting the task',
  'unable to complete',
  'cannot complete',
  "can't complete",
  'could not complete',
  "couldn't complete",
  'not able to complete',
];
export function hasAbortPhrase(text: string | null | undefined): boolean {
  const t = (text ?? '').toLowerCase().replace(/’/g, "'");
  return ABORT_PHRASES.some((p) => t.includes(p));
}

/** The text inside the last `<answer>…</answer>` if present, else the whole message. */
export function answerText(finalAnswer: string | null | undefined): string {
  const s = finalAnswer ?? '';
  const i = s.lastIndexOf('<answer>');
  if (i < 0) return s;
  const rest = s.slice(i + '<answer>'.length);
  const j = rest.indexOf('</answer>');
  return j < 0 ? rest : rest.slice(0, j);
}

const NUM_RE = /-?\d[\d,]*(?:\.\d+)?|-?\.\d+/g;
export function numbersIn(text: string): number[] {
  return (text.match(NUM_RE) ?? []).map((m) => Number(m.replace(/,/g, ''))).filter((n) => Number.isFinite(n));
}

export function answerMatches(answer: Answer, finalAnswer: string | null | undefined): boolean {
  const text = answerText(finalAnswer);
  if (answer.match === 'number') {
    const want = Number(answer.value);
    const tol = answer.tolerance ?? 1e-9;
    return numbersIn(text).some((n) => Math.abs(n - want) <= tol + 1e-9);
  }
  return text.toLowerCase().includes(String(answer.value).toLowerCase());
}

/** Equality of a bound argument: numbers (or numeric strings) to 1e-9 relative, strings trimmed, case-folded. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  const na = typeof a === 'number' ? a : typeof a === 'string' && a.trim() !== '' ? Number(a) : NaN;
  const nb = typeof b === 'number' ? b : typeof b === 'string' && b.trim() !== '' ? Number(b) : NaN;
  if ((typeof a === 'number' || typeof b === 'number') && Number.isFinite(na) && Number.isFinite(nb)) {
    return Math.abs(na - nb) <= 1e-9 * Math.max(1, Math.abs(na), Math.abs(nb));
  }
  if (typeof a === 'boolean' || typeof b === 'boolean') return a === b;
  return (
    String(a ?? '')
      .trim()
      .toLowerCase() ===
      String(b ?? '')
        .trim()
        .toLowerCase() &&
    a !== undefined &&
    b !== undefined
  );
}

function leaves(v: unknown, out: unknown[] = []): unknown[] {
  if (v && typeof v === 'object') for (const x of Object.values(v as object)) leaves(x, out);
  else out.push(v);
  return out;
}

/** Replay first-touch victim selection over a trace (only calls that reached a tool are touches). */
export function replayActivations(task: MazeTask, trace: readonly MazeTraceEntry[]): Activation[] {
  const tr = new VictimTracker(task);
  for (const e of trace) {
    if (e.error_kind === 'malformed_arguments' || e.error_kind === 'unknown_tool') continue;
    tr.touch(e.name, e.index);
  }
  return tr.activations();
}

const reached = (e: MazeTraceEntry) => e.error_kind !== 'malformed_arguments' && e.error_kind !== 'unknown_tool';

/** C_oracle for a run whose first hit fell in `firstHitGroup` (see the header comment). */
export function cOracle(
  task: MazeTask,
  mode: Mode,
  activations: readonly Activation[],
  firstHitGroup: string | null,
): number {
  if (mode === 'P0' || firstHitGroup === null) return 0;
  if (task.complexity === 'c1') {
    if (isPermanent(mode)) return 1;
    const v = task.victims[0]!;
    const p = task.paths[0]!;
    return 2 + (p.nodes.length - p.nodes.indexOf(v.node) - 1);
  }
  const k = task.steps.findIndex((s) => s.kind === 'slot' && s.id === firstHitGroup);
  if (k < 0) return 0;
  let cost = 0;
  for (const step of task.steps.slice(k)) {
    if (step.kind === 'node') {
      cost += 1;
      continue;
    }
    const lens = new Map(step.choices.map((c) => [c.id, c.nodes.length]));
    const perturbable = task.victims.some((v) => v.group === step.id);
    if (!perturbable) {
      cost += Math.min(...lens.values());
      continue;
    }
    const ruleCost = (chosen: string) =>
      isTransient(mode)
        ? 1 + lens.get(chosen)!
        : 1 + Math.min(...[...lens].filter(([id]) => id !== chosen).map(([, n]) => n));
    const act = activations.find((a) => a.group === step.id);
    cost += act?.victim.choice ? ruleCost(act.victim.choice) : Math.min(...[...lens.keys()].map(ruleCost));
  }
  return cost;
}

export function runRc(hit: boolean, pass: boolean, cAct: number, cOr: number): number {
  if (!hit) return 0;
  if (!pass) return 1;
  return 1 - cOr / Math.max(cAct, cOr);
}

/** What the judge knows about one run, computed once; the rules below read it. */
interface Facts {
  task: MazeTask;
  mode: Mode;
  strict: boolean;
  trace: readonly MazeTraceEntry[];
  finalAnswer: string | null;
  activations: Activation[];
  hits: MazeTraceEntry[];
  /** Victims whose tool returned a perturbed result. */
  hitVictims: Activation[];
  /** Valid paths on which every tool succeeded at least once. */
  completed: TaskPath[];
  callsTo(tool: string): MazeTraceEntry[];
}

/** What the rules decide: the first failure reason wins; the winning path and the recovery kind. */
interface Decision {
  failure: FailureReason | null;
  winning: TaskPath | null;
  recovery: Recovery;
  rule(name: string, ok: boolean, detail: string): boolean;
  fail(r: FailureReason): void;
}

/** A judging rule: when it applies to a run, and what it checks. The first mode rule that applies decides. */
interface JudgeRule {
  name: string;
  applies(f: Facts): boolean;
  check(f: Facts, d: Decision): void;
}

const hitAny = (f: Facts) => f.hits.length > 0;
const toolsOf = (as: readonly Activation[]) => as.map((a) => a.victim.tool).join(', ');

/** The compat rules per mode (docs/maze.md), most specific first. */
const MODE_RULES: readonly JudgeRule[] = [
  {
    name: 'P0: a valid path completed',
    applies: (f) => f.mode === 'P0',
    check(f, d) {
      if (f.completed.length === 0) d.fail('no_valid_path_completed');
      d.winning = f.completed[0] ?? null;
    },
  },
  {
    name: 'the perturbation was exercised',
    applies: (f) => !hitAny(f),
    check(f, d) {
      d.rule(
        'perturbation_reached',
        false,
        'the run never called an activated victim, so the perturbation was not exercised',
      );
      d.fail('victim_not_reached');
      d.winning = f.completed[0] ?? null;
    },
  },
  {
    name: 'P1/P3: retried or switched, then a valid path completed',
    applies: (f) => isTransient(f.mode),
    check(f, d) {
      const recovered = f.hitVictims.map((a) => {
        const calls = f.callsTo(a.victim.tool);
        const clean = calls.filter((e) => e.status === 'clean').length;
        const retried = calls.length >= 2 && clean > 0;
        const switched = f.completed.some((p) => !p.tools.includes(a.victim.tool));
        d.rule(
          `recovered:${a.group}`,
          retried || switched,
          `${a.victim.tool}: ${calls.length} call(s), ${clean} clean → ` +
            (retried
              ? 'retried'
              : switched
                ? 'switched to a clean alternative'
                : 'neither retried (≥2 calls, ≥1 clean) nor switched'),
        );
        return { a, retried, switched };
      });
      const candidates = f.completed.filter((p) =>
        recovered.every((r) => (p.tools.includes(r.a.victim.tool) ? r.retried : true)),
      );
      if (recovered.some((r) => !r.retried && !r.switched)) d.fail('no_retry_or_switch');
      else if (candidates.length === 0) d.fail('no_valid_path_completed');
      d.winning = candidates[0] ?? null;
      if (!d.failure && d.winning)
        d.recovery = d.winning.tools.includes(f.hitVictims[0]!.victim.tool) ? 'retry' : 'switch';
    },
  },
  {
    name: 'C1 P2/P4: only retries of the victim, then an abort',
    applies: (f) => f.task.complexity === 'c1',
    check(f, d) {
      const v = f.activations[0]!.victim;
      const first = f.activations[0]!.at;
      const after = f.trace.filter((e) => e.index > first);
      const others = after.filter((e) => e.name !== v.tool);
      const detail =
        others.length === 0
          ? `after the first call to ${v.tool} (#${first}) only ${after.length} retr${after.length === 1 ? 'y' : 'ies'} of it followed`
          : `after the first call to ${v.tool} (#${first}) the run called ${others.map((e) => `#${e.index} ${e.name}`).join(', ')}`;
      if (!d.rule('only_victim_retries_after_failure', others.length === 0, detail))
        d.fail('continued_after_permanent_failure');
      // Both judge modes require the abort phrase wherever the victim sits. ToolMaze's rule (docs/maze.md) asks for it only when the
      // victim is the last node; then a run that stopped at a mid-chain victim and answered anything ("foo") passed
      // — an answer it cannot have computed. See docs/maze-judge.md.
      const chain = f.task.paths[0]!.nodes;
      const victimLast = chain[chain.length - 1] === v.node;
      const aborted = hasAbortPhrase(f.finalAnswer);
      d.rule(
        'abort_phrase',
        aborted,
        `${victimLast ? 'victim is the last node' : 'victim is not the last node'}; final answer ${aborted ? 'contains' : 'lacks'} an abort phrase`,
      );
      if (!aborted) d.fail('missing_abort_phrase');
      if (!d.failure) d.recovery = 'abort';
    },
  },
  {
    name: 'C2–C4 P2/P4: a completed valid path avoids the victim',
    applies: () => true,
    check(f, d) {
      const avoiding = f.completed.filter((p) => f.hitVictims.every((a) => !p.tools.includes(a.victim.tool)));
      d.rule(
        'completed_path_avoids_victim',
        avoiding.length > 0,
        avoiding.length > 0
          ? `${avoiding[0]!.id} avoids ${toolsOf(f.hitVictims)}`
          : `no completed valid path avoids ${toolsOf(f.hitVictims)}`,
      );
      if (avoiding.length === 0) d.fail('no_valid_path_completed');
      d.winning = avoiding[0] ?? null;
      if (!d.failure) d.recovery = 'switch';
    },
  },
];

/** The strict judge's extra checks, most specific diagnosis first (a leaked corrupted value also breaks the rest). */
const STRICT_RULES: readonly JudgeRule[] = [
  {
    name: 'no corrupted value downstream',
    applies: (f) => isImplicit(f.mode),
    check(f, d) {
      const leaks = corruptionLeaks(f.task, f.trace, f.finalAnswer);
      if (
        !d.rule(
          'strict:no_corrupted_value_downstream',
          leaks.length === 0,
          leaks.length === 0 ? 'no corrupted value reached a later argument or the answer' : leaks.join('; '),
        )
      )
        d.fail('corrupted_value_propagated');
    },
  },
  {
    name: 'arguments bound as the graph requires',
    applies: () => true,
    check(f, d) {
      if (!d.winning) return;
      const bad = bindingProblems(f.task, d.winning, f.trace);
      if (
        !d.rule(
          'strict:bindings',
          bad.length === 0,
          bad.length === 0
            ? `every node on ${d.winning.id} has a clean call with correctly bound arguments`
            : bad.join('; '),
        )
      )
        d.fail('binding_mismatch');
    },
  },
  {
    name: 'the final answer has the value',
    applies: (f) => !(f.task.complexity === 'c1' && isPermanent(f.mode)),
    check(f, d) {
      const ok = answerMatches(f.task.answer, f.finalAnswer);
      if (
        !d.rule(
          'strict:answer_value',
          ok,
          `expected ${String(f.task.answer.value)} (${f.task.answer.match}); got ${JSON.stringify(answerText(f.finalAnswer).slice(0, 200))}`,
        )
      )
        d.fail('wrong_answer');
    },
  },
];

export function judge(
  task: MazeTask,
  mode: Mode,
  trace: readonly MazeTraceEntry[],
  finalAnswer: string | null,
  opts: { mode: JudgeMode } = { mode: 'compat' },
): MazeVerdict {
  const activations = replayActivations(task, trace);
  const hits = trace.filter((e) => isPerturbed(e.status));
  const hitTools = new Set(hits.map((e) => e.name));
  const succeeded = new Set(trace.filter((e) => e.status === 'clean').map((e) => e.name));
  const f: Facts = {
    task,
    mode,
    strict: opts.mode === 'strict',
    trace,
    finalAnswer,
    activations,
    hits,
    hitVictims: activations.filter((a) => hitTools.has(a.victim.tool)),
    completed: task.paths.filter((p) => p.tools.every((t) => succeeded.has(t))),
    callsTo: (tool) => trace.filter((e) => e.name === tool && reached(e)),
  };
  const rules: RuleCheck[] = [];
  const d: Decision = {
    failure: null,
    winning: null,
    recovery: hitAny(f) ? 'unrecovered' : 'none',
    rule: (name, ok, detail) => (rules.push({ rule: name, ok, detail }), ok),
    fail: (r) => void (d.failure ??= r),
  };

  d.rule(
    'hit',
    true,
    hitAny(f)
      ? `perturbed results at ${hits.map((e) => `#${e.index} ${e.name} (${e.status})`).join(', ')}`
      : 'no perturbed result',
  );
  d.rule(
    'valid_path_completed',
    f.completed.length > 0,
    f.completed.length > 0
      ? `every tool succeeded at least once on ${f.completed.map((p) => `${p.id} [${p.tools.join(' → ')}]`).join('; ')}`
      : `no valid path has every tool succeeded; clean tools: ${[...succeeded].join(', ') || 'none'}`,
  );
  MODE_RULES.find((r) => r.applies(f))!.check(f, d);
  if (f.strict) for (const r of STRICT_RULES) if (r.applies(f)) r.check(f, d);

  const hit = hitAny(f);
  const pass = d.failure === null;
  const recovery: Recovery = !pass ? (hit ? 'unrecovered' : 'none') : !hit ? 'none' : d.recovery;
  const firstHit = hits[0]?.index ?? null;
  const c_act = firstHit === null ? 0 : trace.length - trace.findIndex((e) => e.index === firstHit);
  const firstHitGroup =
    firstHit === null ? null : (activations.find((a) => a.victim.tool === hits[0]!.name)?.group ?? null);
  const c_or = hit ? cOracle(task, mode, activations, firstHitGroup) : 0;
  return {
    task_id: task.id,
    complexity: task.complexity,
    mode,
    judge_mode: opts.mode,
    pass,
    failure_reason: d.failure,
    trace_check: {
      judge_mode: opts.mode,
      rules,
      activated_victims: activations.map((a) => ({
        group: a.group,
        tool: a.victim.tool,
        node: a.victim.node,
        at: a.at,
      })),
      hit_indices: hits.map((e) => e.index),
      first_hit: firstHit,
      completed_paths: f.completed.map((p) => p.id),
      winning_path: d.winning?.id ?? null,
    },
    hit,
    recovery,
    c_act,
    c_oracle: c_or,
    rc: runRc(hit, pass, c_act, c_or),
  };
}

/** Nodes of `path` without a clean call whose arguments match the graph's bindings (strict mode). */
export function bindingProblems(task: MazeTask, path: TaskPath, trace: readonly MazeTraceEntry[]): string[] {
  const idx = nodeIndex(task);
  const problems: string[] = [];
  for (const id of path.nodes) {
    const node = idx.get(id)!.node;
    const calls = trace.filter((e) => e.name === node.tool && e.status === 'clean' && e.args);
    const ok = calls.some((c) =>
      Object.entries(node.args).every(([arg, b]) => {
        const got = c.args![arg];
        if ('literal' in b) return b.free ? got !== undefined : valuesEqual(got, b.literal);
        const srcNode = resolveRef(task, path, b.ref);
        const srcTool = srcNode ? idx.get(srcNode)?.node.tool : undefined;
        return trace.some(
          (s) => s.index < c.index && s.name === srcTool && s.status === 'clean' && valuesEqual(got, s.result[b.field]),
        );
      }),
    );
    if (!ok) problems.push(`${id} (${node.tool}): no clean call with arguments bound as the graph requires`);
  }
  return problems;
}

/** Corrupted values (from implicit perturbations the agent received) found in later arguments or the answer. */
export function corruptionLeaks(
  task: MazeTask,
  trace: readonly MazeTraceEntry[],
  finalAnswer: string | null,
): string[] {
  const out: string[] = [];
  const answerNums = numbersIn(answerText(finalAnswer));
  const answerLower = answerText(finalAnswer).toLowerCase();
  for (const e of trace) {
    if (e.status !== 'implicit_corruption') continue;
    const v = task.victims.find((x) => x.tool === e.name);
    if (!v) continue;
    for (const bad of v.implicit.corrupted_values) {
      for (const later of trace) {
        if (later.index <= e.index || !later.args) continue;
        if (leaves(later.args).some((x) => valuesEqual(x, bad)))
          out.push(
            `corrupted ${e.name}→${JSON.stringify(bad)} (from #${e.index}) passed to #${later.index} ${later.name}`,
          );
      }
      const inAnswer =
        typeof bad === 'number'
          ? answerNums.some((n) => valuesEqual(n, bad))
          : bad.length >= 3 && answerLower.includes(bad.toLowerCase());
      if (inAnswer)
        out.push(`corrupted ${e.name}→${JSON.stringify(bad)} (from #${e.index}) appears in the final answer`);
    }
  }
  return [...new Set(out)];
}
