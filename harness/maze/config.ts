import { resolve } from 'node:path';
import { z } from 'zod';
import { parseEnv, type RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { mazeRoot } from './output.ts';
import { COMPLEXITIES, DEFAULT_CASES_DIR, MODES, type Complexity, type Mode } from './task.ts';
import { VERDICT_SETTINGS, type VerdictSetting } from './verdicts.ts';

/** Maze settings from the environment (the `toolgauge maze` flags map onto these). */
const Env = z.object({
  TOOLGAUGE_MAZE_CATEGORIES: z.string().default(COMPLEXITIES.join(',')),
  TOOLGAUGE_MAZE_MODES: z.string().default(MODES.join(',')),
  TOOLGAUGE_MAZE_ONLY: z.string().optional(),
  TOOLGAUGE_MAZE_TASK_ID: z.string().optional(),
  TOOLGAUGE_MAZE_TASK_CATEGORY: z.string().optional(),
  TOOLGAUGE_MAZE_AGENT: z.enum(['fc', 'prompt']).optional(),
  TOOLGAUGE_MAZE_JUDGE: z.enum(['compat', 'strict']).default('compat'),
  TOOLGAUGE_MAZE_MAX_TURNS: z.string().regex(/^\d+$/).transform(Number).default(20),
  TOOLGAUGE_MAZE_CASES: z.string().optional(),
  TOOLGAUGE_MAZE_AGENT_TYPE: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'an agent name: letters, digits, - and _')
    .optional(),
  TOOLGAUGE_MAZE_AGENT_MODULE: z.string().optional(),
  TOOLGAUGE_MAZE_JUDGE_MODEL: z.string().trim().min(1).optional(),
  TOOLGAUGE_MAZE_JUDGE_BASE_URL: z.string().url('TOOLGAUGE_MAZE_JUDGE_BASE_URL must be a URL').optional(),
  TOOLGAUGE_MAZE_VERDICT: z.enum(VERDICT_SETTINGS).default('rules'),
  TOOLGAUGE_MAZE_TOOLS: z.string().optional(),
  TOOLGAUGE_MAZE_TASKS: z.string().optional(),
  TOOLGAUGE_MAZE_TOOL_TRANSPORT: z.enum(['in-process', 'mcp']).default('in-process'),
});

export interface MazeConfig {
  categories: Complexity[];
  modes: Mode[];
  /** `--only` and `--task-id` together: task ids or task-plus-mode run ids (harness/maze/selection.ts). */
  only: string[] | undefined;
  agent: 'fc' | 'prompt';
  /** `--agent-type`: openai | vllm | mcp | anthropic, or a user module's agent (harness/agent/registry.ts). */
  agentType: string;
  /** `--agent-module FILE`: an absolute path to the module registering `agentType`. */
  agentModule: string | undefined;
  judge: 'compat' | 'strict';
  maxTurns: number;
  casesDir: string;
  /** The LLM judge's model (`--judge-model`), run beside the rule judge; undefined: the rule judge only. */
  judgeModel?: string;
  /** Its endpoint (`--judge-base-url`); see judgeEndpoint in harness/maze/judge-client.ts for the defaults. */
  judgeBaseUrl?: string;
  /** `--verdict`: which judge decides pass, TSR, PRR and RC (`llm` and `both` need `judgeModel`); harness/maze/verdicts.ts. */
  verdict: VerdictSetting;
  /** `--tools`: library files or folders added to the built-in tools (docs/maze-tools.md). */
  toolPaths: string[];
  /** `--tasks`: a user's task file, run instead of the built-in task graphs. */
  tasksFile: string | undefined;
  /** `--tool-transport`: the agent calls the tools in process, or over MCP from a server per run (docs/mcp.md). */
  toolTransport: 'in-process' | 'mcp';
}

export function readMazeConfig(env: NodeJS.ProcessEnv): MazeConfig {
  const e = parseEnv(Env, env);
  const list = <T extends string>(raw: string, allowed: readonly T[], name: string): T[] => {
    const xs = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const x of xs)
      if (!allowed.includes(x as T)) throw new UsageError(`${name}: '${x}' is not one of ${allowed.join(',')}`);
    return xs as T[];
  };
  // ToolMaze's run_eval.py names one category with --task-category; --categories is toolgauge's list.
  if (e.TOOLGAUGE_MAZE_TASK_CATEGORY && env.TOOLGAUGE_MAZE_CATEGORIES !== undefined)
    throw new UsageError('give --categories or --task-category, not both');
  if (e.TOOLGAUGE_MAZE_JUDGE_BASE_URL && !e.TOOLGAUGE_MAZE_JUDGE_MODEL)
    throw new UsageError('--judge-base-url needs --judge-model');
  if (e.TOOLGAUGE_MAZE_VERDICT !== 'rules' && !e.TOOLGAUGE_MAZE_JUDGE_MODEL)
    throw new UsageError(
      `--verdict ${e.TOOLGAUGE_MAZE_VERDICT} needs --judge-model (the LLM judge whose verdicts it uses)`,
    );
  return {
    categories: e.TOOLGAUGE_MAZE_TASK_CATEGORY
      ? list(e.TOOLGAUGE_MAZE_TASK_CATEGORY.toLowerCase(), COMPLEXITIES, '--task-category')
      : list(e.TOOLGAUGE_MAZE_CATEGORIES.toLowerCase(), COMPLEXITIES, '--categories'),
    modes: list(e.TOOLGAUGE_MAZE_MODES.toUpperCase(), MODES, '--modes'),
    only: ids(e.TOOLGAUGE_MAZE_ONLY, e.TOOLGAUGE_MAZE_TASK_ID),
    ...agentSettings(e.TOOLGAUGE_MAZE_AGENT, e.TOOLGAUGE_MAZE_AGENT_TYPE, e.TOOLGAUGE_MAZE_AGENT_MODULE),
    judge: e.TOOLGAUGE_MAZE_JUDGE,
    maxTurns: e.TOOLGAUGE_MAZE_MAX_TURNS,
    casesDir: e.TOOLGAUGE_MAZE_CASES ? resolve(e.TOOLGAUGE_MAZE_CASES) : DEFAULT_CASES_DIR,
    ...(e.TOOLGAUGE_MAZE_JUDGE_MODEL ? { judgeModel: e.TOOLGAUGE_MAZE_JUDGE_MODEL } : {}),
    ...(e.TOOLGAUGE_MAZE_JUDGE_BASE_URL ? { judgeBaseUrl: e.TOOLGAUGE_MAZE_JUDGE_BASE_URL } : {}),
    verdict: e.TOOLGAUGE_MAZE_VERDICT,
    toolPaths: (e.TOOLGAUGE_MAZE_TOOLS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((p) => resolve(p)),
    tasksFile: e.TOOLGAUGE_MAZE_TASKS ? resolve(e.TOOLGAUGE_MAZE_TASKS) : undefined,
    toolTransport: e.TOOLGAUGE_MAZE_TOOL_TRANSPORT,
  };
}

/**
 * `--agent-type` and its older alias `--agent fc|prompt` (fc = openai, prompt = mcp): `agent` stays the call style
 * (`fc` or `prompt`) reports and fingerprints name; a user module's agent needs `--agent-type` to name it.
 */
function agentSettings(
  agent: 'fc' | 'prompt' | undefined,
  type: string | undefined,
  module: string | undefined,
): Pick<MazeConfig, 'agent' | 'agentType' | 'agentModule'> {
  const alias = agent === 'prompt' ? 'mcp' : agent === 'fc' ? 'openai' : undefined;
  if (alias && type && alias !== type && !(agent === 'fc' && ['vllm', 'anthropic'].includes(type))) {
    throw new UsageError(
      `--agent ${agent} and --agent-type ${type} disagree (--agent is the older name: fc = openai, prompt = mcp)`,
    );
  }
  const agentType = type ?? alias ?? 'openai';
  if (module === undefined && !BUILTIN_AGENT_TYPES.includes(agentType))
    throw new UsageError(
      `--agent-type: '${agentType}' is not one of ${BUILTIN_AGENT_TYPES.join(',')} (another agent comes with --agent-module FILE)`,
    );
  if (module !== undefined && !type)
    throw new UsageError('--agent-module: name the agent it registers with --agent-type NAME');
  return {
    agent: agentType === 'mcp' ? 'prompt' : 'fc',
    agentType,
    agentModule: module === undefined ? undefined : resolve(module),
  };
}

/** The agents toolgauge has built in (harness/agent/registry.ts), as ToolMaze names them. */
export const BUILTIN_AGENT_TYPES: readonly string[] = ['openai', 'vllm', 'mcp', 'anthropic'];

/** The ids of `--only` and `--task-id` in the order given; undefined when neither is set. */
function ids(...raws: Array<string | undefined>): string[] | undefined {
  const given = raws.filter((r): r is string => r !== undefined);
  if (given.length === 0) return undefined;
  return [
    ...new Set(
      given.flatMap((r) =>
        r
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ),
  ];
}

/**
 * `--out-dir DIR`, else `results/<model>/<fc|mcp>/` as ToolMaze names its agent folders (`mcp` is its prompt-based
 * tool calling, toolgauge's `--agent-type mcp`; openai, vllm and anthropic call tools natively: `fc`). A user
 * module's agent writes to a folder of its own name.
 */
export function mazeOutDir(
  cfg: Pick<RunConfig, 'outDir' | 'model'>,
  m: Pick<MazeConfig, 'agent'> & Partial<Pick<MazeConfig, 'agentType'>>,
): string {
  if (cfg.outDir) return resolve(cfg.outDir);
  return resolve(mazeRoot(resolve('results'), cfg.model), '..', agentFolder(m));
}

/** The agent's folder under `results/<model>/`: `fc`, `mcp`, or a user agent's name. */
export function agentFolder(m: Pick<MazeConfig, 'agent'> & Partial<Pick<MazeConfig, 'agentType'>>): string {
  if (m.agentType && !BUILTIN_AGENT_TYPES.includes(m.agentType)) return m.agentType;
  return m.agent === 'prompt' ? 'mcp' : 'fc';
}
