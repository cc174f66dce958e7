import type { ModelCallRecord } from '../../agent/loop.ts';
import type { ChatMessage } from '../../core/chat.ts';
import type { RunConfig } from '../../core/config.ts';
import type { ModelClient } from '../../model/client.ts';
import type { Sampling, Usage } from '../../model/types.ts';
import type { ArgRule } from '../../match/types.ts';
import type { JudgeContext } from './judge-context.ts';

/**
 * One row of a user's eval: an id (else its position), the input, and what is expected. `TInput` is what the task
 * receives (a string or a message list for `toolLoop`, anything for a task of your own); `TExpected` what scorers
 * receive as `expected`.
 */
export interface EvalCase<TInput = string, TExpected = unknown> {
  id?: string | number;
  input: TInput;
  expected?: TExpected;
  /**
   * The tool calls the case expects (`scorers.toolCalls()` scores them; the simulator's `sim:oracle` makes them with
   * these arguments before it answers `expected`).
   */
  expectedTools?: readonly ExpectedToolCall[];
  /** This case's own way of comparing its `expectedTools`, in place of the `scorers.toolCalls()` options. */
  expectedToolsMatch?: ToolCallsMatch;
  /** Group name → value, for breakdowns in the report (e.g. `{ topic: 'math' }`). */
  tags?: Record<string, string>;
  [extra: string]: unknown;
}

/** One tool call a case expects. */
export interface ExpectedToolCall {
  name: string;
  /** The expected arguments, compared with the kit's call-matching rules; or a test of the actual arguments. */
  arguments?: Record<string, unknown> | ((actual: Record<string, unknown>) => boolean);
  /** Rules per argument path (equivalents, tolerance, casefold, ISO datetimes …), as `scorers.argumentsMatch` takes. */
  rules?: Record<string, ArgRule>;
}

/**
 * How `scorers.toolCalls()` compares the actual calls with the expected ones (docs/eval.md). `order`: `strict` —
 * exactly the expected calls, in their order; `any` — exactly the expected calls, in any order; `subset` — each
 * expected call among the actual ones, extra calls allowed. `args`: `exact` — no argument beyond the expected ones;
 * `subset` — extra arguments allowed. A predicate in `arguments` decides alone.
 */
export interface ToolCallsMatch {
  order?: 'strict' | 'any' | 'subset';
  args?: 'exact' | 'subset';
}

/** A tool the model may call: an OpenAI function schema plus the code that runs it. */
export interface EvalTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: a tool's own typed argument object must be assignable here
  run(args: Record<string, any>): unknown;
}

/** A tool call as the task saw it run. */
export interface ToolCallRecord {
  name: string;
  /** Parsed arguments (null when the model's arguments were not a JSON object). */
  arguments: Record<string, unknown> | null;
  argumentsJson: string;
  result: string;
  error: string | null;
}

/** What a task produced for one case. */
export interface TaskOutput {
  /** The final assistant text. */
  output: string;
  /** The text inside the last `<answer>…</answer>`, else the whole output (trimmed). */
  answer: string;
  toolCalls: ToolCallRecord[];
  messages: ChatMessage[];
  usage: Usage;
  turns: number;
  /** Each model request: latency, attempts, the failures retried, cached or not, finish reason, usage (in the trace). */
  modelCalls?: ModelCallRecord[];
}

/** The input `toolLoop` takes: the user's question, or a conversation (docs/eval.md). */
export type ChatInput = string | readonly ChatMessage[];

export interface TaskContext<TInput = string, TExpected = unknown> {
  client: ModelClient;
  run: RunConfig;
  tools: readonly EvalTool[];
  case: EvalCase<TInput, TExpected> & { id: string };
  trial: number;
  /**
   * This trial's sampling fields (temperature, max tokens, and the seed: the run's seed + the trial), what the run's
   * header records: spread them into every request (`client.chat({ messages, ...ctx.sampling }, …)`) so trials are
   * distinct samples.
   */
  sampling: Sampling;
  /** The suite name, for the request context (`<suite>:<id>`). */
  suite: string;
}

/** What runs one case: the case's input in, what the scorers see out. */
export type Task<TInput = string, TOutput = TaskOutput, TExpected = unknown> = (
  input: TInput,
  ctx: TaskContext<TInput, TExpected>,
) => Promise<TOutput> | TOutput;

export interface ScoreArgs<TInput = string, TExpected = unknown, TOutput = TaskOutput> {
  input: TInput;
  expected: TExpected | undefined;
  output: TOutput;
  case: EvalCase<TInput, TExpected> & { id: string };
  /** The run's judge, for a scorer that asks a model (`scorers.judge`); set by the eval's suite. */
  judge?: JudgeContext;
}

/**
 * A score in [0, 1] (true = 1), or null: unscored (the scorer does not apply to this case; counted apart, never as
 * 0). Optionally with the reason, for the report. NaN, ±Infinity or a number outside [0, 1] is the scorer's error.
 */
export type ScoreValue = number | boolean | null | { score: number | boolean | null; reason?: string };

export interface Scorer<TInput = string, TExpected = unknown, TOutput = TaskOutput> {
  name: string;
  score(args: ScoreArgs<TInput, TExpected, TOutput>): ScoreValue | Promise<ScoreValue>;
}
