import { LoopError } from '../agent/loop.ts';
import type { ToolExecutor } from '../core/chat.ts';
import type { Agent } from '../agent/registry.ts';
import type { Sampling } from '../model/types.ts';
import type { Usage } from '../model/types.ts';
import { MazeSession } from './engine.ts';
import { judge, type JudgeMode, type MazeVerdict } from './judge.ts';
import type { JudgePromptInput, LlmJudgeRecord } from './llm-judge.ts';
import { buildEvaluation, buildInference, type EvaluationFile, type InferenceFile } from './output.ts';
import { MAZE_SYSTEM_PROMPT } from './prompt.ts';
import type { MazeTask, Mode } from './task.ts';

export interface MazeRunResult {
  verdict: MazeVerdict;
  inference: InferenceFile;
  evaluation: EvaluationFile;
  error: string | null;
  turns: number;
  toolCalls: number;
  /** Tokens over every model call of the run, as the endpoint reported them. */
  usage: Usage;
  /** The LLM judge's verdict (or its error), when one was asked; never asked about a run cut short by the endpoint. */
  llmJudge?: LlmJudgeRecord;
}

/**
 * One (task, mode) run: the agent (harness/agent/registry.ts) against a fresh MazeSession (the perturbation engine),
 * then the deterministic judge. An endpoint failure keeps the partial trace, is judged as it stands, and is marked
 * error.
 */
export async function runMazeInstance(
  task: MazeTask,
  mode: Mode,
  deps: {
    agent: Agent;
    model: string;
    maxTurns: number;
    judgeMode: JudgeMode;
    trial?: number;
    maxToolCallsPerTurn?: number;
    sampling?: Sampling;
    /** The LLM judge, asked after the rule judge (which always runs). */
    llmJudge?: (input: JudgePromptInput) => Promise<LlmJudgeRecord>;
    /** How the agent reaches the tools: in this process (default), or over MCP from a server of the run's own. */
    toolTransport?: ToolTransport;
  },
): Promise<MazeRunResult> {
  // The MCP SDK loads only for a run that uses it.
  const overMcp =
    deps.toolTransport === 'mcp' ? await (await import('./mcp-world.ts')).mazeOverMcp(task, mode) : undefined;
  try {
    return await runWith(task, mode, deps, overMcp?.session ?? new MazeSession(task, mode), overMcp?.executor);
  } finally {
    await overMcp?.close();
  }
}

export type ToolTransport = 'in-process' | 'mcp';

async function runWith(
  task: MazeTask,
  mode: Mode,
  deps: Parameters<typeof runMazeInstance>[2],
  session: MazeSession,
  executor: ToolExecutor = session,
): Promise<MazeRunResult> {
  let messages: unknown[] = [];
  let turns = 0;
  let stopped = 'answer';
  let error: string | null = null;
  let finalAnswer: string | null = null;
  let usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  try {
    const trace = await deps.agent.run({
      ctx: { instance: `maze:${task.id}:${mode}`, trial: deps.trial ?? 0 },
      system: MAZE_SYSTEM_PROMPT,
      user: task.query,
      executor,
      maxTurns: deps.maxTurns,
      ...(deps.maxToolCallsPerTurn !== undefined ? { maxToolCallsPerTurn: deps.maxToolCallsPerTurn } : {}),
      ...(deps.sampling ? { sampling: deps.sampling } : {}),
    });
    messages = trace.messages;
    turns = trace.turns;
    usage = trace.usage;
    stopped = trace.exhausted ? 'max_turns' : 'answer';
    finalAnswer = trace.exhausted ? null : (trace.messages.at(-1)?.content ?? null);
  } catch (err) {
    if (!(err instanceof LoopError)) throw err;
    messages = err.trace.messages;
    turns = err.trace.modelCalls.length;
    usage = err.trace.usage;
    stopped = 'error';
    error = err.message;
  }
  const verdict = judge(task, mode, session.trace(), finalAnswer, { mode: deps.judgeMode });
  const inference = buildInference(task, mode, deps.model, {
    trace: session.trace(),
    finalAnswer,
    turns,
    stopped,
    error,
    messages,
    usage,
    trial: deps.trial ?? 0,
    ...(deps.toolTransport ? { toolTransport: deps.toolTransport } : {}),
  });
  const llmJudge =
    deps.llmJudge && !error ? await deps.llmJudge({ task, mode, trace: session.trace(), finalAnswer }) : undefined;
  const evaluation = {
    ...buildEvaluation(verdict, deps.model, deps.trial ?? 0),
    ...(llmJudge ? { llm_judge: llmJudge } : {}),
  };
  return {
    verdict,
    inference,
    evaluation,
    error,
    turns,
    toolCalls: session.trace().length,
    usage,
    ...(llmJudge ? { llmJudge } : {}),
  };
}
