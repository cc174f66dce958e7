// One API-Bank task run as the reference runs it: one chat completion per agent (no tools, no loop), the reply's
// call extracted and scored. Teams use toolgauge's topologies (harness/agent/team) with the reference's sizes,
// roles and seeds; their answer is the winning (or final) agent's extracted call, scored the same way.
import type { ChatMessage, ToolExecutor } from '../core/chat.ts';
import { pyToJson } from '../core/pyliteral/index.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { resolveTeamOptions, runTeam, type Roster, type TeamOptions, type TeamTask } from '../agent/team/index.ts';
import type { ModelClient } from '../model/client.ts';
import { ModelCallError, type Sampling } from '../model/types.ts';
import type { ScoreOptions } from './env/index.ts';
import { extractApiCall, parseApiCall } from './extract.ts';
import {
  fallbackRolePrompt,
  formatChatHistory,
  loadRolePrompt,
  systemPrompt,
  userPrompt,
  withContext,
} from './prompt.ts';
import { scoreExtracted, type ReplyVerdict } from './scoring.ts';
import type { ApibankTopology } from './settings.ts';
import type { ApibankTask } from './tasks.ts';

/** The reference's rosters: roles per topology (configs/prompts/<topology>/apibank/<role>.txt). */
export const APIBANK_ROSTER: Roster = {
  independent: 'solver',
  decentralized: 'debater',
  centralized: { manager: 'manager', pool: ['inspector_worker', 'caller_worker', 'validator_worker'] },
  sequential: {
    pool: ['dialogue_reader', 'schema_mapper', 'argument_planner', 'verifier'],
    order: ['dialogue_reader', 'schema_mapper', 'argument_planner', 'verifier'],
  },
};

/** The reference's team sizes: 4 voters; 4 peers × 2 rounds; 3 workers + manager; 4 stages. */
export const APIBANK_TEAM_SIZES: Record<Exclude<ApibankTopology, 'single'>, { agents: number; rounds?: number }> = {
  independent: { agents: 4 },
  decentralized: { agents: 4, rounds: 2 },
  centralized: { agents: 3, rounds: 1 },
  sequential: { agents: 4 },
};

/** `<topology>_langgraph`: the reference's style string (results' `style`, the fallback prompt). */
export const styleOf = (topology: ApibankTopology) => `${topology}_langgraph`;

export interface RunDeps {
  client: ModelClient;
  model: string;
  /** The trial's sampling, seed included, as the kit hands it out (team members add their index to the seed). */
  sampling: Sampling;
  trial: number;
  topology: ApibankTopology;
  /** Role prompts (the reference's layout); undefined: the reference's built-in fallback prompt. */
  promptsDir: string | undefined;
  /** The scorer's inputs for a task (the ToolSearcher scorer depends on the task's level). */
  score: (t: ApibankTask) => ScoreOptions;
}

export interface TaskOutcome {
  /** The reply (or the team's answering agent's final message). */
  raw: string;
  /** `extract_api_call(raw)`: what `predicted_answer` holds. */
  predicted_answer: string;
  verdict: ReplyVerdict;
  /** The request failed for good: `<Type>: <message>`; the task stays in the denominator as wrong. */
  error: string | null;
  messages: ChatMessage[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; n_llm_calls: number };
  solve_s: number;
  n_agents: number;
  team?: Record<string, unknown>;
}

const NO_VERDICT: ReplyVerdict = {
  correct: false,
  stage: 'parse',
  error: null,
  predicted_api_name: null,
  predicted_params: {},
};

/** The single topology: the solver's one completion. */
export async function runSingle(task: ApibankTask, d: RunDeps): Promise<TaskOutcome> {
  const system = systemPrompt(loadRolePrompt(d.promptsDir, 'single', 'solver', styleOf('single')), {
    topology: 'single',
    role: 'solver',
  });
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: userPrompt(task) },
  ];
  const started = performance.now();
  try {
    const r = await d.client.chat(
      { messages, ...d.sampling },
      { instance: `apibank:${task.id}`, agent: 'solver', trial: d.trial },
    );
    const raw = r.content ?? '';
    const predicted = extractApiCall(raw);
    return {
      raw,
      predicted_answer: predicted,
      verdict: scoreExtracted(task, predicted, d.score(task)),
      error: null,
      messages: [...messages, { role: 'assistant', content: raw }],
      usage: { ...r.usage, n_llm_calls: 1 },
      solve_s: round1((performance.now() - started) / 1000),
      n_agents: 1,
    };
  } catch (err) {
    if (!(err instanceof ModelCallError)) throw err;
    return {
      raw: '',
      predicted_answer: '',
      verdict: NO_VERDICT,
      error: `${err.name}: ${err.message}`,
      messages,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, n_llm_calls: 0 },
      solve_s: round1((performance.now() - started) / 1000),
      n_agents: 1,
    };
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** `_answer_key`: the parsed call as sorted JSON, or the lower-cased text when it does not parse. */
export function answerKey(answer: string): string {
  try {
    const p = parseApiCall(answer);
    return sortedJson({ name: p.name, params: Object.fromEntries(p.params.map(([k, v]) => [k, pyToJson(v)])) });
  } catch {
    return answer.trim().toLowerCase();
  }
}

function sortedJson(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(sortedJson).join(', ')}]`;
  if (x && typeof x === 'object')
    return `{${Object.keys(x)
      .sort()
      .map((k) => `${JSON.stringify(k)}: ${sortedJson((x as Record<string, unknown>)[k])}`)
      .join(', ')}}`;
  return JSON.stringify(x);
}

function countKeys(keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}

const NO_TOOLS: ToolExecutor = { tools: () => [], execute: async (c) => ({ content: `no tools: ${c.name}` }) };

export interface TeamPlan {
  options: TeamOptions;
  /** role → prompt text: the role's file in the reference's layout, or the reference's fallback prompt. */
  prompts: Record<string, string>;
  /** role → the file it was read from, or null for the fallback. */
  sources: Record<string, string | null>;
}

/** A team topology's options (the reference's sizes) and its role prompts, each role's file or the fallback. */
export function planTeam(topology: Exclude<ApibankTopology, 'single'>, promptsDir: string | undefined): TeamPlan {
  const options = resolveTeamOptions(
    { topology, ...APIBANK_TEAM_SIZES[topology], contextBudget: 5000, reportClip: 1200 },
    APIBANK_ROSTER,
  );
  const roles = options.lead ? [options.lead, ...options.roles] : options.roles;
  const prompts: Record<string, string> = {};
  const sources: Record<string, string | null> = {};
  for (const r of roles) {
    const file = promptsDir ? join(promptsDir, topology, 'apibank', `${r}.txt`) : null;
    sources[r] = file && existsSync(file) ? file : null;
    prompts[r] = loadRolePrompt(promptsDir, topology, r, styleOf(topology));
  }
  return { options, prompts, sources };
}

/** A team topology on one task; the answering agent's final message is extracted and scored as a single reply. */
export async function runTeamTask(task: ApibankTask, d: RunDeps, plan: TeamPlan): Promise<TaskOutcome> {
  const topology = plan.options.topology;
  const user = userPrompt(task);
  const team: TeamTask = {
    instance: `apibank:${task.id}`,
    trial: d.trial,
    client: d.client,
    executor: NO_TOOLS,
    maxTurns: 1,
    prompts: plan.prompts,
    comm: plan.options.comm,
    system: (spec, rolePrompt) =>
      systemPrompt(rolePrompt || fallbackRolePrompt(styleOf(topology)), { topology, role: spec.role }),
    user: (context) => withContext(user, context),
    answerOf: (final) => (final.trim() ? answerKey(extractApiCall(final)) : null),
    reportPart: (final) => final,
    callStyle: 'prompt',
    baseSeed: d.sampling.seed ?? 0,
    sampling: d.sampling,
  };
  const started = performance.now();
  const r = await runTeam(team, plan.options);
  const answering = r.final === null ? undefined : r.runs[r.final];
  const raw = answering?.finalMessage ?? '';
  const predicted = extractApiCall(raw);
  const errored = r.runs.filter((x) => x.error);
  const usage = r.runs.reduce(
    (a, x) => ({
      prompt_tokens: a.prompt_tokens + x.cost.promptTokens,
      completion_tokens: a.completion_tokens + x.cost.completionTokens,
      total_tokens: a.total_tokens + x.cost.totalTokens,
      n_llm_calls: a.n_llm_calls + x.cost.modelCalls,
    }),
    { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, n_llm_calls: 0 },
  );
  return {
    raw,
    predicted_answer: predicted,
    verdict: answering ? scoreExtracted(task, predicted, d.score(task)) : NO_VERDICT,
    error: answering
      ? null
      : (r.error ?? (errored[0]?.error ? `ModelCallError: ${errored[0].error}` : 'no agent answered')),
    messages: answering?.messages ?? [],
    usage,
    solve_s: round1((performance.now() - started) / 1000),
    n_agents: r.runs.length ? new Set(r.runs.map((x) => x.agent)).size : 0,
    team: {
      topology,
      n_rounds: r.rounds,
      winner: answering?.agent ?? null,
      // The reference's buckets: votes per answer key (`_answer_key`: the parsed call as sorted JSON).
      buckets: r.vote ? countKeys(r.vote.ballots.filter((b) => b.counted).map((b) => b.answer!)) : null,
      per_agent: r.runs.map((x) => ({
        agent: x.agent,
        role: x.role,
        round: x.round,
        seed: x.seed,
        predicted_answer: extractApiCall(x.finalMessage),
        error: x.error,
      })),
      runs: r.runs.map((x) => ({
        agent: x.agent,
        role: x.role,
        round: x.round,
        phase: x.phase,
        messages: x.messages,
        error: x.error,
      })),
    },
  };
}

/** The `question` field of the outputs: the history as the prompt shows it. */
export const questionOf = (t: ApibankTask) => formatChatHistory(t.chat_history);
