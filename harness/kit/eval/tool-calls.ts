import { compareArgs } from '../../match/rules.ts';
import { readExpectedTools, readToolCallsMatch } from './expected-tools.ts';
import type { ExpectedToolCall, Scorer, ToolCallRecord, ToolCallsMatch, TaskOutput } from './types.ts';

/**
 * `scorers.toolCalls()`: the task's tool calls against the case's `expectedTools` (docs/eval.md, "Expected tool
 * calls"). One expected call matches one actual call when the names are equal and the arguments pass: a predicate
 * decides alone; an object is compared with the kit's argument rules (harness/match/rules.ts, per-call `rules`),
 * and under `args: 'exact'` the call may pass no top-level argument the expected object lacks; no `arguments` checks
 * the name only. The score is partial, the share of calls matched:
 *
 * - `strict`: the longest run of expected calls matched in order (a common subsequence) over the larger of the two
 *   counts — 1 exactly when the calls are the expected ones in their order;
 * - `any`: the most expected calls matched one-to-one, in any order, over the larger of the two counts — 1 exactly
 *   when the calls are the expected ones in some order;
 * - `subset`: the same matching over the expected count — 1 exactly when every expected call is among the actual
 *   ones (extra calls cost nothing).
 *
 * An empty `expectedTools` expects no call (strict and any: 1 when none was made, else 0; subset: always 1).
 */

export type ToolCallsOptions = ToolCallsMatch & { name?: string };

export interface ToolCallsVerdict {
  score: number;
  /** The first missing, unexpected or mismatched call, with the argument path and both values; null at score 1. */
  reason: string | null;
}

/** Why one actual call does not match one expected call, or null when it does; `cost` ranks near misses. */
interface PairProblem {
  text: string;
  cost: number;
}

const short = (v: unknown): string => {
  const s = v === undefined ? 'nothing' : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
};

const callText = (name: string, args: unknown): string =>
  `${name}(${typeof args === 'function' ? '(function)' : args === undefined ? '' : short(args)})`;

const expectedText = (e: ExpectedToolCall) => callText(e.name, e.arguments);
const actualText = (a: ToolCallRecord) => callText(a.name, a.arguments ?? a.argumentsJson);

/** Compare one actual call with one expected call (same name assumed checked by the caller or here). */
export function compareCall(
  e: ExpectedToolCall,
  a: ToolCallRecord,
  args: NonNullable<ToolCallsMatch['args']>,
): PairProblem | null {
  if (e.name !== a.name) return { text: `expected ${expectedText(e)}, got ${actualText(a)}`, cost: Infinity };
  if (e.arguments === undefined) return null;
  if (!a.arguments) return { text: `arguments are not a JSON object (got ${short(a.argumentsJson)})`, cost: 1e6 };
  if (typeof e.arguments === 'function') {
    let ok: boolean;
    try {
      ok = !!e.arguments(a.arguments);
    } catch (err) {
      return {
        text: `the expected arguments' test threw: ${err instanceof Error ? err.message : String(err)}`,
        cost: 1,
      };
    }
    return ok ? null : { text: `the arguments ${short(a.arguments)} fail the expected arguments' test`, cost: 1 };
  }
  const want = e.arguments;
  const mismatches = compareArgs(want, a.arguments, e.rules ?? {}).map(
    (m) => `${m.path}: ${m.reason} (expected ${short(m.expected)}, got ${short(m.actual)})`,
  );
  if (args === 'exact')
    for (const [k, v] of Object.entries(a.arguments))
      if (!(k in want) && v !== undefined) mismatches.push(`${k}: unexpected argument (got ${short(v)})`);
  return mismatches.length ? { text: mismatches.join('; '), cost: mismatches.length } : null;
}

/**
 * The most expected calls matched one-to-one with actual calls (Kuhn's augmenting paths; deterministic: expected
 * calls in order, each trying actual calls in order). `of[i]` is the actual index matched to expected i, or -1.
 */
export function maxMatching(ok: readonly (readonly boolean[])[], actualCount: number): number[] {
  const owner = new Array<number>(actualCount).fill(-1);
  const of = new Array<number>(ok.length).fill(-1);
  const tryAssign = (i: number, seen: boolean[]): boolean => {
    for (let j = 0; j < actualCount; j++) {
      if (!ok[i]![j] || seen[j]) continue;
      seen[j] = true;
      if (owner[j] === -1 || tryAssign(owner[j]!, seen)) {
        owner[j] = i;
        of[i] = j;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < ok.length; i++) tryAssign(i, new Array<boolean>(actualCount).fill(false));
  return of;
}

/** The longest common subsequence of expected and actual calls under `ok` (its length). */
function lcs(ok: readonly (readonly boolean[])[], n: number, m: number): number {
  let prev = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    const cur = new Array<number>(m + 1).fill(0);
    for (let j = 1; j <= m; j++) cur[j] = ok[i - 1]![j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return prev[m]!;
}

/** Score the actual calls against the expected ones under the given modes (pure). */
export function scoreToolCalls(
  expected: readonly ExpectedToolCall[],
  actual: readonly ToolCallRecord[],
  mode: Required<ToolCallsMatch>,
): ToolCallsVerdict {
  const n = expected.length;
  const m = actual.length;
  const problem = expected.map((e) => actual.map((a) => compareCall(e, a, mode.args)));
  const ok = problem.map((row) => row.map((p) => p === null));
  if (mode.order === 'strict') {
    const matched = lcs(ok, n, m);
    const denom = Math.max(n, m);
    const score = denom === 0 ? 1 : matched / denom;
    return { score, reason: score === 1 ? null : strictReason(expected, actual, problem) };
  }
  const of = maxMatching(ok, m);
  const matched = of.filter((j) => j >= 0).length;
  const denom = mode.order === 'any' ? Math.max(n, m) : n;
  const score = denom === 0 ? 1 : matched / denom;
  return { score, reason: score === 1 ? null : unorderedReason(expected, actual, problem, of) };
}

/** The first position where the calls depart from the expected sequence. */
function strictReason(
  expected: readonly ExpectedToolCall[],
  actual: readonly ToolCallRecord[],
  problem: (PairProblem | null)[][],
): string {
  const n = expected.length;
  const m = actual.length;
  for (let i = 0; i < Math.max(n, m); i++) {
    if (i >= m) return `missing call ${i + 1}: ${expectedText(expected[i]!)} (${m} call(s) made, ${n} expected)`;
    if (i >= n) return `unexpected call ${i + 1}: ${actualText(actual[i]!)} (${n} call(s) expected)`;
    const p = problem[i]![i];
    if (p) return `call ${i + 1}${expected[i]!.name === actual[i]!.name ? ` ${actual[i]!.name}` : ''}: ${p.text}`;
  }
  return 'the calls differ';
}

/** The first expected call left unmatched (with its nearest same-name call), else the first extra call. */
function unorderedReason(
  expected: readonly ExpectedToolCall[],
  actual: readonly ToolCallRecord[],
  problem: (PairProblem | null)[][],
  of: readonly number[],
): string {
  const used = new Set(of.filter((j) => j >= 0));
  const i = of.indexOf(-1);
  if (i >= 0) {
    const e = expected[i]!;
    let best = -1;
    actual.forEach((a, j) => {
      if (a.name !== e.name || used.has(j)) return;
      if (best < 0 || problem[i]![j]!.cost < problem[i]![best]!.cost) best = j;
    });
    if (best >= 0) return `expected call ${i + 1} ${e.name}, nearest call ${best + 1}: ${problem[i]![best]!.text}`;
    const called = actual.map((a) => a.name);
    return `missing call ${i + 1}: ${expectedText(e)} (${called.length ? `called: ${called.join(', ')}` : 'no tool was called'})`;
  }
  const j = actual.findIndex((_, k) => !used.has(k));
  return `unexpected call ${j + 1}: ${actualText(actual[j]!)} (${expected.length} call(s) expected)`;
}

/**
 * The scorer: options give the modes (default `order: 'strict'`, `args: 'exact'`), a case's `expectedToolsMatch`
 * overrides them for that case; a case without `expectedTools` is unscored (null).
 */
export function toolCallsScorer<TInput = unknown, TExpected = unknown>(
  o: ToolCallsOptions = {},
  metricName: (s: string) => string = (s) => s,
): Scorer<TInput, TExpected, TaskOutput> {
  const { name, ...modes } = o;
  const given = readToolCallsMatch(modes, 'scorers.toolCalls options');
  return {
    name: metricName(name ?? 'tool_calls'),
    score({ case: c, output }) {
      const expected = readExpectedTools(c.expectedTools);
      if (!expected) return { score: null, reason: 'the case has no expectedTools' };
      const own = readToolCallsMatch(c.expectedToolsMatch);
      const mode = { order: own.order ?? given.order ?? 'strict', args: own.args ?? given.args ?? 'exact' } as const;
      const v = scoreToolCalls(expected, output.toolCalls, mode);
      return v.reason === null ? { score: v.score } : { score: v.score, reason: v.reason };
    },
  };
}
