import { z } from 'zod';
import { bool01, intFrom, parseEnv } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { valuesOf, type SamplingNeeds } from '../kit/sampling.ts';
import type { Sampling } from '../model/types.ts';

export const TOPOLOGIES = ['single', 'independent', 'decentralized', 'centralized', 'sequential'] as const;
export type Topology = (typeof TOPOLOGIES)[number];
export const COMMS = ['freeform', 'semi_structured', 'structured'] as const;
export type Comm = (typeof COMMS)[number];

/**
 * What a team's members are built on: toolgauge's tool loop, or the OpenAI Agents SDK (the reference's
 * `decentralized/openai_agents` runner; `openai_agents` is its spelling).
 */
export const FRAMEWORKS = ['builtin', 'openai-agents'] as const;
export type Framework = (typeof FRAMEWORKS)[number];
const FRAMEWORK_SPELLINGS = [...FRAMEWORKS, 'openai_agents'] as const;

export const PRESETS = ['reference', 'none'] as const;
export type Preset = (typeof PRESETS)[number];

export const CLUSTERS = ['none', 'domain', 'hops'] as const;
export type ClusterBy = (typeof CLUSTERS)[number];

const Env = z.object({
  TOOLHOP_DATA: z.string().optional(),
  TOOLHOP_REVISION: z.string().default('main'),
  TOOLHOP_LIMIT: intFrom('TOOLHOP_LIMIT').default(5),
  TOOLHOP_OFFSET: intFrom('TOOLHOP_OFFSET').default(0),
  TOOLHOP_ONLY: z.string().optional(),
  TOOLHOP_MAX_TURNS: intFrom('TOOLHOP_MAX_TURNS', 1).default(9),
  TOOLHOP_TOOL_RESULT_CHAR_BUDGET: intFrom('TOOLHOP_TOOL_RESULT_CHAR_BUDGET', 1).default(6000),
  TOOLHOP_ALLOW_DATASET_EXEC: z.string().optional(),
  TOOLHOP_TOPOLOGY: z
    .enum(TOPOLOGIES, { message: `TOOLHOP_TOPOLOGY must be one of ${TOPOLOGIES.join('|')}` })
    .default('single'),
  TOOLHOP_FRAMEWORK: z
    .enum(FRAMEWORK_SPELLINGS, { message: `TOOLHOP_FRAMEWORK must be one of ${FRAMEWORK_SPELLINGS.join('|')}` })
    .transform((f): Framework => (f === 'openai_agents' ? 'openai-agents' : f))
    .default('builtin'),
  TOOLHOP_TEAM_SIZE: intFrom('TOOLHOP_TEAM_SIZE', 1).optional(),
  TOOLHOP_ROUNDS: intFrom('TOOLHOP_ROUNDS', 1).optional(),
  TOOLHOP_COMM: z.enum(COMMS, { message: `TOOLHOP_COMM must be one of ${COMMS.join('|')}` }).default('freeform'),
  TOOLHOP_PROMPTS: z.string().optional(),
  TOOLHOP_TEAM_TEMPERATURE: z.coerce.number().min(0).max(2).optional(),
  TOOLHOP_SMOKE_DATASET: bool01.default(false),
  TOOLHOP_ALLOW_ANY_CELL: bool01.default(false),
  TOOLGAUGE_CI_CLUSTER: z.enum(CLUSTERS).default('none'),
  TOOLHOP_PRESET: z
    .enum(PRESETS, { message: `TOOLHOP_PRESET must be one of ${PRESETS.join('|')}` })
    .default('reference'),
  TOOLHOP_TOP_P: z.coerce.number().gt(0).max(1).optional(),
  TOOLHOP_REPETITION_PENALTY: z.coerce.number().positive().optional(),
  TOOLHOP_THINKING: z.enum(['on', 'off'], { message: 'TOOLHOP_THINKING must be on or off' }).optional(),
  TOOLHOP_MAX_TOKENS: intFrom('TOOLHOP_MAX_TOKENS', 1).optional(),
  TOOLHOP_FINAL_MAX_TOKENS: intFrom('TOOLHOP_FINAL_MAX_TOKENS', 1).optional(),
  TOOLGAUGE_TEMPERATURE: z.coerce.number().min(0).max(2).optional(),
  TOOLGAUGE_MAX_TOKENS: intFrom('TOOLGAUGE_MAX_TOKENS', 1).optional(),
});

/**
 * What the model is asked with: the turns of the tool loop and the extra final-answer call. The seed is added by the
 * kit's rule (harness/kit/sampling.ts: the run's `--seed` plus the trial index).
 */
export interface Generation {
  turn: Omit<Sampling, 'seed'>;
  final: Omit<Sampling, 'seed'>;
}

/**
 * The reference runner's settings, value by value (its `_completion_kwargs` and final-answer call): temperature
 * 0.2, top_p 0.9, max_tokens 512, repetition_penalty 1.05 and `chat_template_kwargs: {enable_thinking: false}` on
 * every turn; the final-answer call at temperature 0 with max_tokens 64. `none` sends only what is set
 * (temperature 0). Explicit flags win over the preset.
 */
export function resolveGeneration(e: z.infer<typeof Env>): Generation {
  const ref = e.TOOLHOP_PRESET === 'reference';
  const topP = e.TOOLHOP_TOP_P ?? (ref ? 0.9 : undefined);
  const extra: Record<string, unknown> = {};
  const penalty = e.TOOLHOP_REPETITION_PENALTY ?? (ref ? 1.05 : undefined);
  if (penalty !== undefined) extra.repetition_penalty = penalty;
  const thinking = e.TOOLHOP_THINKING ?? (ref ? 'off' : undefined);
  if (thinking) extra.chat_template_kwargs = { enable_thinking: thinking === 'on' };
  const common = {
    ...(topP !== undefined ? { topP } : {}),
    ...(Object.keys(extra).length ? { extraBody: extra } : {}),
  };
  const turnMax = e.TOOLHOP_MAX_TOKENS ?? e.TOOLGAUGE_MAX_TOKENS ?? (ref ? 512 : undefined);
  const finalMax = e.TOOLHOP_FINAL_MAX_TOKENS ?? (ref ? 64 : undefined);
  return {
    turn: {
      temperature: e.TOOLGAUGE_TEMPERATURE ?? (ref ? 0.2 : 0),
      ...(turnMax ? { maxTokens: turnMax } : {}),
      ...common,
    },
    final: { temperature: 0, ...(finalMax ? { maxTokens: finalMax } : {}), ...common },
  };
}

/**
 * ToolHop's sampling needs: the turns (the base values; a team's `--team-temperature` replaces their temperature)
 * and the final-answer call (phase `final`). Team members add their index to the trial's seed.
 */
export function toolhopSampling(
  s: Pick<ToolhopSettings, 'generation' | 'topology' | 'teamTemperature'>,
): SamplingNeeds {
  const turn = valuesOf(s.generation.turn, 0);
  return {
    base:
      s.topology !== 'single' && s.teamTemperature !== undefined ? { ...turn, temperature: s.teamTemperature } : turn,
    phases: { final: valuesOf(s.generation.final, 0) },
  };
}

/** The ToolHop suite's settings (`toolgauge toolhop` flags map onto these variables). */
export interface ToolhopSettings {
  data: string | undefined;
  revision: string;
  limit: number;
  offset: number;
  only: string[] | undefined;
  maxTurns: number;
  toolResultCharBudget: number;
  allowDatasetExec: boolean;
  topology: Topology;
  /** What the team's members run on (the OpenAI Agents SDK only for the decentralized team). */
  framework: Framework;
  /** Team size (default per topology); rounds of debate or delegation (default per topology). */
  teamSize: number | undefined;
  rounds: number | undefined;
  comm: Comm;
  /** Role prompts to use instead of the bundled ones (toolgauge's or the reference runner's layout). */
  promptsDir: string | undefined;
  /** Sampling temperature of every team member (members differ by seed; at 0 a seed-blind server gives clones). */
  teamTemperature: number | undefined;
  smokeDataset: boolean;
  /** Run a cell no runner of the reference runs (grid.ts); the command line refuses one otherwise. */
  allowAnyCell: boolean;
  ciCluster: ClusterBy;
  preset: Preset;
  generation: Generation;
}

export function readToolhopSettings(env: NodeJS.ProcessEnv): ToolhopSettings {
  const e = parseEnv(Env, env);
  // Team settings on a single agent would be recorded but not run: refuse them rather than mislead.
  if (e.TOOLHOP_TOPOLOGY === 'single') {
    const team = [
      e.TOOLHOP_TEAM_SIZE !== undefined && 'TOOLHOP_TEAM_SIZE (--agents)',
      e.TOOLHOP_ROUNDS !== undefined && 'TOOLHOP_ROUNDS (--rounds)',
      env.TOOLHOP_COMM && 'TOOLHOP_COMM (--comm)',
    ].filter(Boolean);
    if (team.length)
      throw new UsageError(
        `${team.join(', ')}: team settings need a team topology (--topology independent|decentralized|centralized|sequential)`,
      );
  }
  // The reference builds only its decentralized team on the Agents SDK; so does toolgauge.
  if (e.TOOLHOP_FRAMEWORK === 'openai-agents' && e.TOOLHOP_TOPOLOGY !== 'decentralized')
    throw new UsageError(
      `TOOLHOP_FRAMEWORK (--framework) openai-agents runs the decentralized team only (--topology decentralized), not ${e.TOOLHOP_TOPOLOGY}`,
    );
  return {
    data: e.TOOLHOP_DATA,
    revision: e.TOOLHOP_REVISION,
    limit: e.TOOLHOP_LIMIT,
    offset: e.TOOLHOP_OFFSET,
    only: e.TOOLHOP_ONLY?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    maxTurns: e.TOOLHOP_MAX_TURNS,
    toolResultCharBudget: e.TOOLHOP_TOOL_RESULT_CHAR_BUDGET,
    allowDatasetExec: e.TOOLHOP_ALLOW_DATASET_EXEC === '1',
    topology: e.TOOLHOP_TOPOLOGY,
    framework: e.TOOLHOP_FRAMEWORK,
    teamSize: e.TOOLHOP_TEAM_SIZE,
    rounds: e.TOOLHOP_ROUNDS,
    comm: e.TOOLHOP_COMM,
    promptsDir: e.TOOLHOP_PROMPTS,
    teamTemperature: e.TOOLHOP_TEAM_TEMPERATURE,
    smokeDataset: e.TOOLHOP_SMOKE_DATASET,
    allowAnyCell: e.TOOLHOP_ALLOW_ANY_CELL,
    ciCluster: e.TOOLGAUGE_CI_CLUSTER,
    preset: e.TOOLHOP_PRESET,
    generation: resolveGeneration(e),
  };
}
