import type { ChatMessage } from '../core/chat.ts';
import type { RunConfig } from '../core/config.ts';
import { toolhopSampling, type ToolhopSettings } from './settings.ts';
import { LoopError, runToolLoop, type LoopTrace } from '../agent/loop.ts';
import { loadRolePrompts, type PromptSet } from '../agent/team/prompts.ts';
import { fromRoot } from '../core/paths.ts';
import { samplingPlan, trialSampling } from '../kit/sampling.ts';
import type { ModelClient } from '../model/client.ts';
import type { Sampling } from '../model/types.ts';
import type { Sandbox } from '../sandbox/index.ts';
import { lastAssistantContent, previousToolContent } from './answer.ts';
import { ToolhopExecutor } from './executor.ts';
import { finalizerRequest, hasAnswerTag, SINGLE_AGENT, userPrompt, withOutputContract } from './prompts.ts';
import { hopCount, rowId, type ToolhopRow } from './row.ts';
import { routeRowTools, type RowSandbox } from './row-sandbox.ts';
import { scoreAnswer } from './score.ts';
import type { Prediction, Result, TraceFile } from './records.ts';

export const DATASET_EXEC_ERROR =
  'ToolHop solving requires executing dataset-provided Python tool functions. Set TOOLHOP_ALLOW_DATASET_EXEC=1 only when you intend to run the benchmark.';

const BUNDLED_PROMPTS = fromRoot('harness', 'toolhop', 'prompts');

/**
 * The single agent's role prompt, a file like every team role's (so an optimizer can rewrite it):
 * `<dir>/single/solver.txt` or the reference layout `<dir>/single/toolhop/solver.txt`, else the bundled one.
 */
export function singlePrompt(promptsDir: string | undefined): PromptSet {
  return loadRolePrompts(promptsDir ?? BUNDLED_PROMPTS, 'single', ['solver'], {
    suite: 'toolhop',
    fallbackDir: BUNDLED_PROMPTS,
  });
}

export interface InstanceDeps {
  client: ModelClient;
  sandbox: () => Sandbox;
  run: RunConfig;
  settings: ToolhopSettings;
  trial?: number;
  /** The trial's sampling by phase, as the kit hands it out (default: derived the same way from run and settings). */
  sampling?: (phase?: string) => Sampling;
}

/** The trial's sampling: the kit's, else the suite's plan for this run and trial (direct callers, benchmarks). */
export function samplingOfDeps(deps: InstanceDeps, trial: number): (phase?: string) => Sampling {
  return deps.sampling ?? trialSampling(samplingPlan(deps.run, toolhopSampling(deps.settings)), trial);
}

export interface ToolhopOutcome {
  prediction: Prediction;
  result: Result;
  trace: TraceFile;
}

/** Solve one row with the single-agent topology and score it; an endpoint failure becomes `error`, not wrong. */
export async function runToolhopInstance(row: ToolhopRow, deps: InstanceDeps): Promise<ToolhopOutcome> {
  const trial = deps.trial ?? 0;
  const started = new Date();
  if (!deps.settings.allowDatasetExec) {
    return outcome(row, trial, started, undefined, { message: DATASET_EXEC_ERROR, kind: 'dataset_exec_disabled' });
  }
  const routed = await routeRowTools(row, deps.sandbox());
  if (routed.error)
    return withSandbox(
      outcome(row, trial, started, undefined, { message: routed.error, kind: 'environment' }),
      routed.recorded,
    );
  const executor = new ToolhopExecutor(
    row,
    deps.sandbox(),
    deps.settings.toolResultCharBudget,
    deps.run.sandbox.toolTimeoutMs,
  );
  return withSandbox(await solve(row, deps, trial, started, executor), routed.recorded);
}

async function solve(
  row: ToolhopRow,
  deps: InstanceDeps,
  trial: number,
  started: Date,
  executor: ToolhopExecutor,
): Promise<ToolhopOutcome> {
  const id = rowId(row);
  try {
    const system = withOutputContract(singlePrompt(deps.settings.promptsDir).text.solver!);
    const trace = await runToolLoop({
      client: deps.client,
      ctx: { instance: `toolhop:${id}`, agent: SINGLE_AGENT, trial },
      system,
      user: userPrompt(row.question),
      executor,
      maxTurns: deps.settings.maxTurns,
      maxToolCallsPerTurn: deps.run.maxToolCallsPerTurn,
      sampling: samplingOfDeps(deps, trial)(),
      finalSampling: samplingOfDeps(deps, trial)('final'),
      finalizer: {
        needed: (messages) => !hasAnswerTag(lastAssistantContent(messages)),
        request: finalizerRequest,
      },
    });
    return outcome(row, trial, started, trace);
  } catch (err) {
    if (err instanceof LoopError)
      return outcome(row, trial, started, err.trace, { message: err.message, kind: 'endpoint' });
    return outcome(row, trial, started, undefined, {
      message: `${(err as Error).name}: ${(err as Error).message}`,
      kind: 'harness',
    });
  }
}

function outcome(
  row: ToolhopRow,
  trial: number,
  started: Date,
  trace: LoopTrace | undefined,
  error?: InstanceError,
): ToolhopOutcome {
  const messages: ChatMessage[] = trace?.messages ?? [];
  return instanceRecords(
    row,
    trial,
    started,
    {
      messages,
      answered: !error,
      turns: messages.filter((m) => m.role === 'assistant').length,
      toolCalls: trace?.tools.length ?? 0,
      usage: trace?.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      wallMs: trace?.wallMs ?? 0,
      forcedFinal: trace?.forcedFinal ?? false,
      exhausted: trace?.exhausted ?? false,
      toolExecutions: trace?.tools ?? [],
      modelCalls: trace?.modelCalls ?? [],
    },
    error,
  );
}

/** `environment`: the row's tools need a sandbox this machine lacks (docs/toolhop.md, "Sandboxes"). */
export type InstanceError = {
  message: string;
  kind: 'endpoint' | 'dataset_exec_disabled' | 'harness' | 'environment';
};

/** The outcome with the sandbox that ran its row recorded in the trace. */
export function withSandbox<T extends ToolhopOutcome>(o: T, recorded: RowSandbox): T {
  o.trace.sandbox = recorded.sandbox;
  o.trace.sandbox_needs = recorded.sandbox_needs;
  return o;
}

/** What one instance's records are built from: the scored conversation, and the totals of everything that ran. */
export interface ScoredRun {
  /** The conversation whose last answer is scored (a team's designated run). */
  messages: ChatMessage[];
  /** False when there is nothing to score: an error, or a team that produced no final run. */
  answered: boolean;
  turns: number;
  toolCalls: number;
  usage: Prediction['usage'];
  wallMs: number;
  forcedFinal: boolean;
  exhausted: boolean;
  toolExecutions: unknown[];
  modelCalls: unknown[];
}

/** The prediction, result and trace of one instance, scored by the reference's rules; the same for every topology. */
export function instanceRecords(
  row: ToolhopRow,
  trial: number,
  started: Date,
  r: ScoredRun,
  error?: InstanceError,
): ToolhopOutcome {
  const finalMessage = r.answered ? lastAssistantContent(r.messages) : '';
  const prevTool = r.answered ? previousToolContent(r.messages) : '';
  const score = r.answered
    ? scoreAnswer(row.answer, finalMessage, prevTool)
    : { correct: false, rule: null, predicted: '' };
  const common = { id: rowId(row), trial, hops: hopCount(row), domain: row.domain, answer_type: row.answer_type };
  return {
    prediction: {
      ...common,
      question: row.question,
      gold_answer: row.answer,
      predicted_answer: score.predicted,
      final_message: finalMessage,
      previous_tool_content: prevTool,
      turns: r.turns,
      tool_calls: r.toolCalls,
      usage: r.usage,
      error: error?.message ?? null,
      error_kind: error?.kind ?? null,
    },
    result: {
      ...common,
      correct: score.correct,
      rule: score.rule,
      predicted_answer: score.predicted,
      gold_answer: row.answer,
      error: error?.message ?? null,
    },
    trace: {
      ...common,
      question: row.question,
      gold_answer: row.answer,
      started_at: started.toISOString(),
      wall_ms: r.wallMs,
      forced_final: r.forcedFinal,
      exhausted: r.exhausted,
      messages: r.messages,
      tool_executions: r.toolExecutions,
      model_calls: r.modelCalls,
      error: error?.message ?? null,
    },
  };
}
