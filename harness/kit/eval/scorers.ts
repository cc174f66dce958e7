import { compareArgs } from '../../match/rules.ts';
import type { ArgRule } from '../../match/types.ts';
import { factualityScorer, type FactualityOptions, type JudgeOptions, judgeScorer } from './judge.ts';
import { type ToolCallsOptions, toolCallsScorer } from './tool-calls.ts';
import type { ScoreArgs, Scorer, ScoreValue, TaskOutput } from './types.ts';

/**
 * Scorers for the common cases. Each has a name (the metric it becomes: `metrics.<name>` in summary.json) and
 * returns a score in [0, 1] (or null: unscored). Write your own as `{ name, score: ({ input, expected, output, case }) => … }` or with
 * `scorers.custom`.
 */

/** Compare answers as people mean them: case, surrounding space and punctuation, `1,000` vs `1000`, `42.0` vs `42`. */
export function normalizeAnswer(s: string): string {
  return s
    .normalize('NFKC')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^["'`]+|["'`.!?;:]+$/g, '')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/^(-?\d+)\.0+$/, '$1')
    .trim();
}

const text = (x: unknown): string =>
  typeof x === 'string' ? x : x === undefined || x === null ? '' : JSON.stringify(x);

function metricName(s: string): string {
  const n = s.replace(/[^\w.-]+/g, '_').replace(/^[^A-Za-z_]+/, '');
  return n || 'scorer';
}

/** A built-in scorer: it reads the task's standard output, and takes any input and expected value. */
type AnyScorer<TInput = unknown, TExpected = unknown> = Scorer<TInput, TExpected, TaskOutput>;

export interface AnswerOptions<TInput = unknown, TExpected = unknown> {
  /** The expected answer; default: the case's `expected`. */
  expected?: (args: ScoreArgs<TInput, TExpected>) => unknown;
  /** Normalise both sides first (default true). */
  normalize?: boolean;
  name?: string;
}

function answerScorer<TInput, TExpected>(
  defaultName: string,
  test: (want: string, got: string) => boolean,
  o: AnswerOptions<TInput, TExpected> = {},
): AnyScorer<TInput, TExpected> {
  return {
    name: metricName(o.name ?? defaultName),
    score(args) {
      const norm = o.normalize === false ? (s: string) => s : normalizeAnswer;
      const want = norm(text(o.expected ? o.expected(args) : args.expected));
      const got = norm(args.output.answer);
      const ok = want !== '' && test(want, got);
      return { score: ok, reason: ok ? undefined : `expected '${want}', answered '${got}'` };
    },
  };
}

export const scorers = {
  /** The answer equals the expected one (after normalisation). */
  answerMatches: <TInput = unknown, TExpected = unknown>(o?: AnswerOptions<TInput, TExpected>) =>
    answerScorer('answer_matches', (w, g) => w === g, o),
  /** The answer contains the expected one (after normalisation). */
  answerIncludes: <TInput = unknown, TExpected = unknown>(o?: AnswerOptions<TInput, TExpected>) =>
    answerScorer('answer_includes', (w, g) => g.includes(w), o),

  /** The tool was called (at least `min` times, or exactly `times`). */
  calledTool(tool: string, o: { times?: number; min?: number; name?: string } = {}): AnyScorer {
    return {
      name: metricName(o.name ?? `called_${tool}`),
      score({ output }) {
        const n = output.toolCalls.filter((c) => c.name === tool).length;
        const ok = o.times !== undefined ? n === o.times : n >= (o.min ?? 1);
        return { score: ok, reason: ok ? undefined : `${tool} called ${n} time(s)` };
      },
    };
  },

  /** The tool was never called (abstention, or a tool that must not be used). */
  notCalledTool(tool: string, o: { name?: string } = {}): AnyScorer {
    return {
      name: metricName(o.name ?? `not_called_${tool}`),
      score({ output }) {
        const n = output.toolCalls.filter((c) => c.name === tool).length;
        return { score: n === 0, reason: n ? `${tool} called ${n} time(s)` : undefined };
      },
    };
  },

  /** The tools were called in this order: as a subsequence of all calls (default), or exactly. */
  callSequence(tools: readonly string[], o: { exact?: boolean; name?: string } = {}): AnyScorer {
    return {
      name: metricName(o.name ?? 'call_sequence'),
      score({ output }) {
        const got = output.toolCalls.map((c) => c.name);
        let ok: boolean;
        if (o.exact) ok = got.length === tools.length && got.every((n, i) => n === tools[i]);
        else {
          let k = 0;
          for (const n of got) if (n === tools[k]) k++;
          ok = k === tools.length;
        }
        return { score: ok, reason: ok ? undefined : `called ${got.join(' → ') || '(nothing)'}` };
      },
    };
  },

  /**
   * Some call of `tool` has the expected arguments, compared with the probe's rules (equivalents, set match,
   * numeric tolerance, case-folding, ISO datetimes …) — per argument path, e.g. `{ city: { casefold: true } }`.
   */
  argumentsMatch<TInput = unknown, TExpected = unknown>(
    tool: string,
    expected: Record<string, unknown> | ((args: ScoreArgs<TInput, TExpected>) => Record<string, unknown>),
    rules: Record<string, ArgRule> = {},
    o: { name?: string } = {},
  ): AnyScorer<TInput, TExpected> {
    return {
      name: metricName(o.name ?? `args_${tool}`),
      score(args) {
        const want = typeof expected === 'function' ? expected(args) : expected;
        const named = args.output.toolCalls.filter((c) => c.name === tool);
        const calls = named.filter((c) => c.arguments);
        if (!calls.length)
          return {
            score: false,
            reason: notCalledReason(
              tool,
              named.length,
              args.output.toolCalls.map((c) => c.name),
            ),
          };
        let best: string[] | null = null;
        for (const c of calls) {
          const mism = compareArgs(want, c.arguments!, rules).map(
            (m) => `${m.path}: ${m.reason} (expected ${shortValue(m.expected)}, got ${shortValue(m.actual)})`,
          );
          if (!mism.length) return 1;
          if (!best || mism.length < best.length) best = mism;
        }
        return { score: false, reason: best!.join('; ') };
      },
    };
  },

  /**
   * Graded by a judge model against `rubric` (docs/eval.md, "Judged scorers"): by default the run's endpoint and model;
   * a failed request or a reply without a readable verdict makes the case an error naming this scorer.
   */
  judge<TInput = unknown, TExpected = unknown, TOutput = TaskOutput>(
    o: JudgeOptions<TInput, TExpected, TOutput>,
  ): Scorer<TInput, TExpected, TOutput> {
    return judgeScorer({ ...o, name: metricName(o.name ?? 'judge') });
  },

  /** A judge's verdict on whether the answer agrees with the expected one (unscored without one). */
  factuality<TInput = unknown, TExpected = unknown, TOutput = TaskOutput>(
    o: FactualityOptions<TInput, TExpected, TOutput> = {},
  ): Scorer<TInput, TExpected, TOutput> {
    return factualityScorer({ ...o, name: metricName(o.name ?? 'factuality') });
  },

  /**
   * The calls against the case's `expectedTools`: `order` strict (default) | any | subset, `args` exact (default) |
   * subset; the share of calls matched; a case without expectedTools is unscored (docs/eval.md).
   */
  toolCalls: <TInput = unknown, TExpected = unknown>(o?: ToolCallsOptions) =>
    toolCallsScorer<TInput, TExpected>(o, metricName),

  /** Any function of the case and the output. */
  custom<TInput = unknown, TExpected = unknown, TOutput = TaskOutput>(
    name: string,
    fn: (args: ScoreArgs<TInput, TExpected, TOutput>) => ScoreValue | Promise<ScoreValue>,
  ): Scorer<TInput, TExpected, TOutput> {
    return { name: metricName(name), score: fn };
  },
};

/** Why no call of `tool` could be compared: it was called without a JSON object, or not at all (and what was). */
function notCalledReason(tool: string, namedCalls: number, called: readonly string[]): string {
  if (namedCalls) return `${tool} was called ${namedCalls} time(s), never with a JSON object of arguments`;
  return `${tool} was not called (${called.length ? `called: ${called.join(', ')}` : 'no tool was called'})`;
}

function shortValue(v: unknown): string {
  const s = v === undefined ? 'nothing' : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

/**
 * A score as a number in [0, 1] (true = 1) or null (unscored: the scorer does not apply to this case), and its
 * reason. Anything else — NaN, ±Infinity, a number outside [0, 1], another type — is the scorer's bug: it throws,
 * never a silent 0 or a clamp.
 */
export function scoreOf(v: ScoreValue): { score: number | null; reason?: string } {
  const raw = v !== null && typeof v === 'object' ? v.score : v;
  const reason = v !== null && typeof v === 'object' && typeof v.reason === 'string' ? v.reason : undefined;
  const extra = reason ? { reason } : {};
  if (raw === null) return { score: null, ...extra };
  if (typeof raw === 'boolean') return { score: raw ? 1 : 0, ...extra };
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0 || raw > 1)
    throw new Error(`returned the score ${describeScore(raw)}; a score is a number in [0, 1], a boolean or null`);
  return { score: raw, ...extra };
}

function describeScore(x: unknown): string {
  if (typeof x === 'number') return String(x);
  if (x === undefined) return 'undefined';
  const s = typeof x === 'string' ? JSON.stringify(x) : `of type ${typeof x}`;
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
