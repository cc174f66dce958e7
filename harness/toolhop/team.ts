import { fromRoot } from '../core/paths.ts';
import type { ToolLoopOptions } from '../agent/loop.ts';
import {
  loadRolePrompts,
  resolveTeamOptions,
  runTeam,
  type Cost,
  type Handoff,
  type MemberRun,
  type MemberRunner,
  type MemberSpec,
  type ParseTally,
  type PromptSet,
  type Roster,
  type TeamCost,
  type TeamOptions,
  type TeamOptionsInput,
  type TeamRun,
  type TeamTask,
  type VoteRecord,
} from '../agent/team/index.ts';
import { lastAssistantContent, predictedAnswer } from './answer.ts';
import { TOOLHOP_TEAM_DEFAULTS } from './grid.ts';
import { ToolhopExecutor } from './executor.ts';
import { finalizerRequest, hasAnswerTag, OUTPUT_CONTRACT, REPLICA_ROLES, userPrompt } from './prompts.ts';
import type { TraceFile } from './records.ts';
import type { Framework } from './settings.ts';
import { rowId, type ToolhopRow } from './row.ts';
import {
  DATASET_EXEC_ERROR,
  instanceRecords,
  samplingOfDeps,
  type InstanceDeps,
  type InstanceError,
  type ToolhopOutcome,
  withSandbox,
} from './run-instance.ts';
import { routeRowTools } from './row-sandbox.ts';

/** The bundled role prompts: `harness/toolhop/prompts/<topology>/<role>.txt`. */
export const BUNDLED_TEAM_PROMPTS = fromRoot('harness', 'toolhop', 'prompts');

/**
 * ToolHop's roles, named as in the reference framework's prompt files (so a directory in its layout loads as is).
 * Centralized workers and sequential stages are taken by priority: the first `agents` of the pool. Sequential
 * stages then run in pipeline order, the verifier (who answers) last.
 */
export const TOOLHOP_ROSTER: Roster = {
  independent: REPLICA_ROLES.independent,
  decentralized: REPLICA_ROLES.decentralized,
  centralized: {
    manager: 'manager',
    pool: [
      'planner_worker',
      'caller_worker',
      'validator_worker',
      'question_parser_worker',
      'dependency_mapper_worker',
      'result_auditor_worker',
      'tool_schema_worker',
      'alternative_chain_worker',
      'answer_normalizer_worker',
    ],
  },
  sequential: {
    pool: [
      'verifier',
      'planner',
      'caller',
      'checker',
      'question_parser',
      'tool_schema_inspector',
      'dependency_mapper',
      'result_auditor',
      'alternative_chain_explorer',
      'answer_normalizer',
    ],
    order: [
      'question_parser',
      'tool_schema_inspector',
      'planner',
      'dependency_mapper',
      'caller',
      'result_auditor',
      'checker',
      'alternative_chain_explorer',
      'answer_normalizer',
      'verifier',
    ],
  },
};

export interface ToolhopTeamOptions extends TeamOptionsInput {
  /** Role prompts to use instead of the bundled ones (either layout; missing roles fall back to the bundled). */
  promptsDir?: string;
  /** Sampling temperature of every member (default: the client's). Members always differ by seed. */
  temperature?: number;
  /** Turn budget of each member's tool loop (default: the suite's max turns). */
  maxTurns?: number;
  /** What the members run on (default toolgauge's tool loop; `openai-agents`: decentralized only). */
  framework?: Framework;
}

/** A team's options with defaults applied and its prompts loaded: resolve once per run, reuse for every row. */
export interface ToolhopTeamPlan {
  options: TeamOptions;
  prompts: PromptSet;
  temperature?: number;
  maxTurns?: number;
  framework: Framework;
}

/** A ToolHop team; sizes default to the reference's baseline cell (grid.ts), not the team layer's own defaults. */
export function planToolhopTeam(opts: ToolhopTeamOptions): ToolhopTeamPlan {
  const d = TOOLHOP_TEAM_DEFAULTS[opts.topology];
  const options = resolveTeamOptions(
    { ...opts, agents: opts.agents ?? d.agents, rounds: opts.rounds ?? d.rounds },
    TOOLHOP_ROSTER,
  );
  const roles = options.lead ? [options.lead, ...options.roles] : options.roles;
  const prompts = loadRolePrompts(opts.promptsDir ?? BUNDLED_TEAM_PROMPTS, options.topology, roles, {
    suite: 'toolhop',
    fallbackDir: BUNDLED_TEAM_PROMPTS,
  });
  const framework = opts.framework ?? 'builtin';
  if (framework === 'openai-agents' && options.topology !== 'decentralized')
    throw new Error(
      `toolhop team: the openai-agents framework runs the decentralized team only, not ${options.topology}`,
    );
  return { options, prompts, temperature: opts.temperature, maxTurns: opts.maxTurns, framework };
}

/**
 * The members' runner for a framework: toolgauge's tool loop (undefined), or one OpenAI Agents SDK run per member
 * turn, loaded here on first use so that a run without it never loads the SDK.
 */
async function memberRunner(framework: Framework): Promise<MemberRunner | undefined> {
  if (framework === 'builtin') return undefined;
  return (await import('../adapters/openai-agents-member.ts')).openAIAgentsMember;
}

/** Per-instance team figures, for results and reports (the full record is in the trace). */
export interface ToolhopTeamSummary {
  topology: TeamOptions['topology'];
  comm: TeamOptions['comm'];
  agents: number;
  rounds: number;
  /** The agent whose final message was scored; null when the team failed. */
  answered_by: string | null;
  cost: TeamCost;
  parse: ParseTally;
  /** The vote (independent, decentralized): answers per normalised key and the winning key. */
  vote: { counts: Record<string, number>; winner_key: string | null; voters: number } | null;
}

export interface ToolhopTeamTrace extends TraceFile {
  team: {
    topology: TeamOptions['topology'];
    /** What the members ran on: toolgauge's tool loop or the OpenAI Agents SDK. */
    framework: Framework;
    comm: TeamOptions['comm'];
    agents: number;
    rounds: number;
    roles: string[];
    prompt_sources: Record<string, string>;
    answered_by: string | null;
    runs: Array<
      Omit<MemberRun, 'tools' | 'modelCalls'> & {
        tool_executions: MemberRun['tools'];
        model_calls: MemberRun['modelCalls'];
      }
    >;
    handoffs: Handoff[];
    vote: VoteRecord | null;
    cost: TeamCost;
    parse: ParseTally;
    error: string | null;
  };
}

export interface ToolhopTeamOutcome extends ToolhopOutcome {
  trace: ToolhopTeamTrace;
  team: ToolhopTeamSummary | null;
}

const ANSWER_BLOCK = /<answer>[\s\S]*?<\/answer>/gi;

/**
 * Solve one row with a team and score its answer exactly like the single agent's: the scored message is the
 * final message of the run the topology designates (the vote's winner, the manager's synthesis, the last stage),
 * with that run's last tool result for the third scoring rule. Team costs and the whole team trace come along.
 */
export async function runToolhopTeam(
  row: ToolhopRow,
  deps: InstanceDeps,
  plan: ToolhopTeamPlan | ToolhopTeamOptions,
): Promise<ToolhopTeamOutcome> {
  const p = 'prompts' in plan && 'options' in plan ? plan : planToolhopTeam(plan);
  const trial = deps.trial ?? 0;
  const started = new Date();
  if (!deps.settings.allowDatasetExec) {
    return teamOutcome(row, trial, started, p, undefined, {
      message: DATASET_EXEC_ERROR,
      kind: 'dataset_exec_disabled',
    });
  }
  const routed = await routeRowTools(row, deps.sandbox());
  if (routed.error) {
    const failed = teamOutcome(row, trial, started, p, undefined, { message: routed.error, kind: 'environment' });
    return withSandbox(failed, routed.recorded);
  }
  return withSandbox(await solveTeam(row, deps, p, trial, started), routed.recorded);
}

async function solveTeam(
  row: ToolhopRow,
  deps: InstanceDeps,
  p: ToolhopTeamPlan,
  trial: number,
  started: Date,
): Promise<ToolhopTeamOutcome> {
  const sampling = samplingOfDeps(deps, trial);
  const task: TeamTask = {
    instance: `toolhop:${rowId(row)}`,
    trial,
    client: deps.client,
    executor: new ToolhopExecutor(
      row,
      deps.sandbox(),
      deps.settings.toolResultCharBudget,
      deps.run.sandbox.toolTimeoutMs,
    ),
    maxTurns: p.maxTurns ?? deps.settings.maxTurns,
    prompts: p.prompts.text,
    comm: p.options.comm,
    system: (spec, rolePrompt, comm) => roleSystemPrompt(rolePrompt, comm, spec.answers),
    user: (context) => userPrompt(row.question, context),
    finalizer: toolhopFinalizer,
    answerOf: predictedAnswer,
    reportPart: (m) => m.replace(ANSWER_BLOCK, '').trim(),
    // Members send the trial's seed plus their index.
    baseSeed: sampling().seed ?? 0,
    temperature: p.temperature,
    sampling: sampling(),
    finalSampling: sampling('final'),
  };
  try {
    const member = await memberRunner(p.framework);
    if (member) task.member = member;
    const team = await runTeam(task, p.options);
    return teamOutcome(
      row,
      trial,
      started,
      p,
      team,
      team.error === null ? undefined : { message: team.error, kind: 'endpoint' },
    );
  } catch (err) {
    return teamOutcome(row, trial, started, p, undefined, {
      message: `${(err as Error).name}: ${(err as Error).message}`,
      kind: 'harness',
    });
  }
}

/** Role prompt, then the communication contract; answering roles are wrapped in the `<answer>` output contract. */
export function roleSystemPrompt(rolePrompt: string, commContract: string, answers: boolean): string {
  const body = commContract ? `${rolePrompt.trimEnd()}\n\n${commContract}` : rolePrompt.trimEnd();
  if (!answers) return body;
  return (
    `${OUTPUT_CONTRACT}\n\n${body}\n\n` +
    'Final reminder: satisfy the protected final output contract above exactly; do not stop before emitting the required final artifact.'
  );
}

/**
 * The single agent's final-answer call, with the reference's rule for teams: a run whose answer is the team's
 * gets it whenever its last message has no `<answer>` tag; any other role only when it ran out of turns.
 */
function toolhopFinalizer(spec: MemberSpec): ToolLoopOptions['finalizer'] {
  return {
    needed: (messages, exhausted) => !hasAnswerTag(lastAssistantContent(messages)) && (exhausted || spec.answers),
    request: finalizerRequest,
  };
}

function teamOutcome(
  row: ToolhopRow,
  trial: number,
  started: Date,
  plan: ToolhopTeamPlan,
  team: TeamRun | undefined,
  error?: InstanceError,
): ToolhopTeamOutcome {
  const final = team && team.final !== null ? team.runs[team.final]! : undefined;
  const runs = team?.runs ?? [];
  const total: Cost | undefined = team?.cost.total;
  const base = instanceRecords(
    row,
    trial,
    started,
    {
      // The scored conversation; every agent's is under trace.team.runs.
      messages: final?.messages ?? [],
      answered: !error && final !== undefined,
      turns: runs.reduce((s, r) => s + r.messages.filter((m) => m.role === 'assistant').length, 0),
      toolCalls: total?.toolCalls ?? 0,
      usage: {
        prompt_tokens: total?.promptTokens ?? 0,
        completion_tokens: total?.completionTokens ?? 0,
        total_tokens: total?.totalTokens ?? 0,
      },
      wallMs: team?.wallMs ?? 0,
      forcedFinal: final?.forcedFinal ?? false,
      exhausted: final?.exhausted ?? false,
      toolExecutions: runs.flatMap((r) => r.tools.map((t) => ({ agent: r.agent, ...t }))),
      modelCalls: runs.flatMap((r) => r.modelCalls.map((c) => ({ agent: r.agent, ...c }))),
    },
    error,
  );
  const summary: ToolhopTeamSummary | null = team
    ? {
        topology: team.topology,
        comm: team.comm,
        agents: team.agents,
        rounds: team.rounds,
        answered_by: final?.agent ?? null,
        cost: team.cost,
        parse: team.parse,
        vote: team.vote
          ? {
              counts: team.vote.counts,
              winner_key: team.vote.winnerKey,
              voters: team.vote.ballots.filter((b) => b.counted).length,
            }
          : null,
      }
    : null;
  return {
    team: summary,
    prediction: base.prediction,
    result: base.result,
    trace: {
      ...base.trace,
      team: {
        topology: plan.options.topology,
        framework: plan.framework,
        comm: plan.options.comm,
        agents: plan.options.agents,
        rounds: plan.options.rounds,
        roles: plan.options.lead ? [plan.options.lead, ...plan.options.roles] : plan.options.roles,
        prompt_sources: plan.prompts.source,
        answered_by: final?.agent ?? null,
        runs: runs.map(({ tools, modelCalls, ...r }) => ({ ...r, tool_executions: tools, model_calls: modelCalls })),
        handoffs: team?.handoffs ?? [],
        vote: team?.vote ?? null,
        cost: team?.cost ?? {
          total: { modelCalls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, toolCalls: 0, wallMs: 0 },
          byAgent: {},
          wallMs: 0,
        },
        parse: team?.parse ?? { reports: 0, parsed: 0, rate: null, delegations: 0, delegationsParsed: 0 },
        error: team?.error ?? error?.message ?? null,
      },
    },
  };
}
