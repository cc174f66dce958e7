import type { ChatMessage, ToolExecutor } from '../../core/chat.ts';
import type { ModelClient } from '../../model/client.ts';
import type { Sampling } from '../../model/types.ts';
import {
  LoopError,
  runToolLoop,
  type LoopTrace,
  type ModelCallRecord,
  type ToolLoopOptions,
  type ToolRecord,
} from '../loop.ts';
import { commContract, type CommFormat } from './comm.ts';
import { costOfLoop, type Cost } from './cost.ts';

/** One run of one agent: its identity, and whether its output is the team's answer. */
export interface MemberSpec {
  /** Agent id: sent as `x-toolgauge-agent`, and the key of per-agent costs. Stable across rounds. */
  agent: string;
  /** Prompt name (`solver`, `debater`, `manager`, `planner`, …). */
  role: string;
  /** Its final message can be the team's answer, so it gets the suite's answer contract and final-answer call. */
  answers: boolean;
  /** 1-based round (decentralized debate, centralized delegation); 1 elsewhere. */
  round: number;
  phase: 'solve' | 'delegate' | 'synthesize';
  seed: number;
}

/** What a team needs from the suite for one instance; nothing in agent/team knows the benchmark. */
export interface TeamTask {
  /** `<suite>:<instance id>`. */
  instance: string;
  trial: number;
  client: ModelClient;
  /** The instance's tools (members share one executor: each call is independent). */
  executor: ToolExecutor;
  /** Turn budget of one member's tool loop. */
  maxTurns: number;
  /** role → prompt text. */
  prompts: Record<string, string>;
  comm: CommFormat;
  /** The system prompt of a run: role prompt, communication contract, and the answer contract when it answers. */
  system(spec: MemberSpec, rolePrompt: string, commContract: string): string;
  /** The user message: the task, plus what this agent is shown of the others (may be empty). */
  user(context: string): string;
  /** The suite's final-answer call for this run, if any. */
  finalizer?(spec: MemberSpec): ToolLoopOptions['finalizer'];
  /** The answer in a final message, as the suite extracts it; null when there is none. */
  answerOf(finalMessage: string): string | null;
  /** The final message without the suite's answer markup: what is parsed as the agent's report. */
  reportPart(finalMessage: string): string;
  callStyle?: 'fc' | 'prompt';
  /** Added to each member's seed (members differ by seed, as in the reference: 0, 1, 2, …). */
  baseSeed?: number;
  temperature?: number;
  /** Every member's sampling (a preset's values); the member's seed and the team temperature override it. */
  sampling?: Sampling;
  /** The final-answer call's sampling (default: the member's seed at temperature 0). */
  finalSampling?: Sampling;
  /**
   * Runs one member's turn instead of the tool loop (`runMember`): another agent framework on the same endpoint.
   * The decentralized debate honours it; the other topologies always run the tool loop.
   */
  member?: MemberRunner;
}

/** One member's run on the task, with what it is shown of the others (`context`). */
export type MemberRunner = (task: TeamTask, spec: MemberSpec, context: string) => Promise<MemberRun>;

export interface MemberRun extends MemberSpec {
  messages: ChatMessage[];
  tools: ToolRecord[];
  modelCalls: ModelCallRecord[];
  /** The last non-empty assistant content. */
  finalMessage: string;
  answer: string | null;
  exhausted: boolean;
  forcedFinal: boolean;
  cost: Cost;
  /** The endpoint failed for good during this run (the partial conversation is kept). */
  error: string | null;
}

const NO_TOOLS: ToolExecutor = {
  tools: () => [],
  execute: async (call) => ({ content: `an error occurred when calling ${call.name}: no tools in this step` }),
};

export interface MemberRunOptions {
  /** A step without tools (the manager's delegation): one model call. */
  withoutTools?: boolean;
  /** Replace the communication contract (the delegation step has its own output protocol). */
  commContract?: string;
}

export async function runMember(
  task: TeamTask,
  spec: MemberSpec,
  context: string,
  o: MemberRunOptions = {},
): Promise<MemberRun> {
  const rolePrompt = task.prompts[spec.role];
  if (rolePrompt === undefined) throw new Error(`team: no prompt loaded for role '${spec.role}'`);
  const system = task.system(spec, rolePrompt, o.commContract ?? commContract(task.comm));
  let trace: LoopTrace;
  let error: string | null = null;
  try {
    trace = await runToolLoop({
      client: task.client,
      ctx: { instance: task.instance, agent: spec.agent, trial: task.trial },
      system,
      user: task.user(context),
      executor: o.withoutTools ? NO_TOOLS : task.executor,
      maxTurns: o.withoutTools ? 1 : task.maxTurns,
      callStyle: task.callStyle,
      finalizer: o.withoutTools ? undefined : task.finalizer?.(spec),
      sampling: {
        ...task.sampling,
        seed: (task.baseSeed ?? 0) + spec.seed,
        ...(task.temperature !== undefined ? { temperature: task.temperature } : {}),
      },
      ...(task.finalSampling
        ? { finalSampling: { ...task.finalSampling, seed: (task.baseSeed ?? 0) + spec.seed } }
        : {}),
    });
  } catch (err) {
    if (!(err instanceof LoopError)) throw err;
    trace = err.trace;
    error = err.message;
  }
  const finalMessage = error ? '' : lastAssistantContent(trace.messages);
  return {
    ...spec,
    messages: trace.messages,
    tools: trace.tools,
    modelCalls: trace.modelCalls,
    finalMessage,
    answer: error ? null : task.answerOf(finalMessage),
    exhausted: trace.exhausted,
    forcedFinal: trace.forcedFinal,
    cost: costOfLoop(trace),
    error,
  };
}

export function lastAssistantContent(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant' && m.content) return m.content;
  }
  return '';
}

/** Run members one after another or all at once; results keep the order of `specs`. */
export async function runAll<T>(
  parallel: boolean,
  items: readonly T[],
  run: (item: T, index: number) => Promise<MemberRun>,
): Promise<MemberRun[]> {
  if (parallel) return Promise.all(items.map(run));
  const out: MemberRun[] = [];
  for (let i = 0; i < items.length; i++) out.push(await run(items[i]!, i));
  return out;
}
