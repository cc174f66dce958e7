import type { RunConfig } from '../core/config.ts';
import { DataError, UsageError } from '../core/errors.ts';
import { MODULE_EXT } from '../core/paths.ts';
import type { MazeConfig } from './config.ts';
import { selectRuns } from './selection.ts';
import { judgeEndpoint, judgeUsesSimulator } from './judge-client.ts';
import { mazeSuite } from './suite.ts';
import { checkEndpoint, EndpointUnavailable } from '../model/preflight.ts';
import { mazeTasksOf } from './tasks-of.ts';
import { isSimModel, parsePolicySpec } from '../sim/policy-spec.ts';
import { flagSchemas, type FlagSpecs } from '../kit/flags/flags.ts';
import type { CommandRunner } from '../kit/command.ts';
import { checkAgentModule, mazePreflight } from './agent-check.ts';
import { isBatch, runMazeBatch } from './batch.ts';
import { MODEL_FLAGS } from '../kit/flags/model-flags.ts';
import { applyConfig } from '../kit/flags/config-file.ts';

export const FLAGS: FlagSpecs = {
  categories: { type: 'string', list: true, description: 'c1,c2,c3,c4 (or c3 c4, as ToolMaze writes it)' },
  'task-category': {
    type: 'string',
    values: ['c1', 'c2', 'c3', 'c4', 'C1', 'C2', 'C3', 'C4'],
    description: "one category, as ToolMaze's run_eval.py names it (instead of --categories)",
  },
  modes: { type: 'string', list: true, description: 'P0,P1,P2,P3,P4 (or P0 P1, as ToolMaze writes it)' },
  only: {
    type: 'string',
    list: true,
    description: 'task ids (C1_task_001) or task-plus-mode run ids (C1_task_001_P0), comma-separated',
  },
  'task-id': { type: 'string', list: true, description: 'the same as --only, as ToolMaze names it' },
  agent: {
    type: 'string',
    values: ['fc', 'prompt'],
    description: 'the older name of --agent-type: fc = openai, prompt = mcp',
  },
  'agent-type': {
    type: 'string',
    description: 'openai | vllm | mcp | anthropic, as ToolMaze names its agents, or the agent of --agent-module',
  },
  'agent-module': {
    type: 'string',
    description: 'a module (.mjs/.js) whose default export is an agent { name, create(endpoint) }',
  },
  judge: { type: 'string', values: ['compat', 'strict'] },
  'max-turns': { type: 'string', schema: flagSchemas.positiveInt },
  cases: { type: 'string', description: 'a directory with c1.json … c4.json' },
  'judge-model': {
    type: 'string',
    description: 'an LLM judge run beside the rule judge (sim:judge on the simulator); docs/maze-judge.md',
  },
  'judge-base-url': {
    type: 'string',
    description: "the LLM judge's endpoint (default: the simulator for sim:judge, else --base-url)",
  },
  verdict: {
    type: 'string',
    values: ['rules', 'llm', 'both'],
    description:
      "which judge decides pass, TSR, PRR and RC: rules (default), llm (the --judge-model's verdicts), both (side by side)",
  },
  tools: {
    type: 'string',
    description:
      'tool library files or folders (YAML/JSON) added to the built-in tools, comma-separated (docs/maze-tools.md)',
  },
  tasks: {
    type: 'string',
    description: 'a task file (YAML/JSON) to run instead of the built-in task graphs (docs/maze-tools.md)',
  },
  'tool-transport': {
    type: 'string',
    values: ['in-process', 'mcp'],
    description:
      'how the agent reaches the tools: in process (default), or over MCP from a server per run (docs/mcp.md)',
  },
};

export const USAGE = `toolgauge maze [--categories c1,c2,c3,c4 | --task-category cN] [--modes P0,P1,P2,P3,P4] [--only|--task-id ID,…]
               [--agent-type openai|vllm|mcp|anthropic|NAME [--agent-module FILE]] [--agent fc|prompt]
               [--models A,B,C | --lineup FILE [--allow-env VAR,…]] [--parallel-models N] [--trials K] [--judge compat|strict] [--judge-model M [--judge-base-url URL] [--verdict rules|llm|both]] [--max-turns N] [--cases DIR] [--tools DIR,…] [--tasks FILE] [--tool-transport in-process|mcp] [--model NAME] [--base-url URL] [--concurrency N]
               [--out-dir DIR] [--resume] [--gate EXPR] [--shard i/n] [-t PATTERN] [--print-report]
               [--config FILE.yaml] [--smoke]   (every flag as a key; docs/config.md)`;

/** `toolgauge maze`: C1–C4 task graphs × P0–P4 perturbations through the eval suites in suites/maze/. */
/** The batch's own flags, so a --config file may give them too (batch.ts reads them from the command line). */
const BATCH_FLAG_SPECS: FlagSpecs = {
  models: {
    type: 'string',
    list: true,
    description: 'several models, one run each, then paired comparisons; docs/maze-runs.md',
  },
  lineup: { type: 'string', description: 'a lineup file (YAML or JSON) of the models to run; docs/maze-runs.md' },
  'allow-env': { type: 'string', list: true, description: 'variables a lineup entry may name as its api_key_env' },
  'parallel-models': {
    type: 'string',
    schema: flagSchemas.positiveInt,
    description: "models run at once (default: the run's --concurrency, at most the number of models)",
  },
};

/** Every flag `toolgauge maze` accepts (its `--help` lists them all). */
export const ACCEPTED_FLAGS: FlagSpecs = { ...MODEL_FLAGS, ...FLAGS, ...BATCH_FLAG_SPECS };

export function run(argv: string[], runner: CommandRunner): Promise<number> {
  const args = applyConfig('maze', argv, ACCEPTED_FLAGS, {}, process.env);
  // Several models: one run each, then paired comparisons (batch.ts).
  if (isBatch(args)) return runMazeBatch(args, (a, env) => runOne(runner, a, env), process.env);
  return runOne(runner, args);
}

function runOne(runner: CommandRunner, argv: string[], baseEnv: NodeJS.ProcessEnv = process.env): Promise<number> {
  // The anthropic agent sends the run's key as x-api-key: ANTHROPIC_API_KEY serves when OPENAI_API_KEY is unset.
  const env: NodeJS.ProcessEnv = { ...baseEnv };
  if (
    argv.some((a, i) => (a === '--agent-type' && argv[i + 1] === 'anthropic') || a === '--agent-type=anthropic') &&
    !env.OPENAI_API_KEY &&
    env.ANTHROPIC_API_KEY
  ) {
    env.OPENAI_API_KEY = env.ANTHROPIC_API_KEY;
  }
  return runner.runSuite<MazeConfig>(
    {
      command: 'maze',
      suite: mazeSuite,
      flags: FLAGS,
      env: {
        categories: 'TOOLGAUGE_MAZE_CATEGORIES',
        'task-category': 'TOOLGAUGE_MAZE_TASK_CATEGORY',
        modes: 'TOOLGAUGE_MAZE_MODES',
        only: 'TOOLGAUGE_MAZE_ONLY',
        'task-id': 'TOOLGAUGE_MAZE_TASK_ID',
        agent: 'TOOLGAUGE_MAZE_AGENT',
        'agent-type': 'TOOLGAUGE_MAZE_AGENT_TYPE',
        'agent-module': 'TOOLGAUGE_MAZE_AGENT_MODULE',
        judge: 'TOOLGAUGE_MAZE_JUDGE',
        'max-turns': 'TOOLGAUGE_MAZE_MAX_TURNS',
        cases: 'TOOLGAUGE_MAZE_CASES',
        'judge-model': 'TOOLGAUGE_MAZE_JUDGE_MODEL',
        'judge-base-url': 'TOOLGAUGE_MAZE_JUDGE_BASE_URL',
        verdict: 'TOOLGAUGE_MAZE_VERDICT',
        tools: 'TOOLGAUGE_MAZE_TOOLS',
        tasks: 'TOOLGAUGE_MAZE_TASKS',
        'tool-transport': 'TOOLGAUGE_MAZE_TOOL_TRANSPORT',
      },
      files: ['cases', 'agent-module', 'tasks'],
      evalFiles: (m) => m.categories.map((c) => `suites/maze/${c}.eval${MODULE_EXT}`),
      preflight: (kc, m) => mazePreflight(kc, m),
      async validate(kc, m) {
        await checkAgentModule(m);
        if (m.agentType === 'anthropic' && kc.run.cache !== 'off')
          throw new UsageError(
            `toolgauge maze: --cache ${kc.run.cache} is not available with --agent-type anthropic (the request cache stores OpenAI-compatible requests only)`,
          );
        const { unknown } = selectRuns(tasksOrUsageError(m), m.modes, m.only);
        if (unknown.length)
          throw new UsageError(
            `toolgauge maze: --only/--task-id: no task ${unknown.join(', ')} in ${m.categories.join(',')} (ids are like C1_task_001, or C1_task_001_P0 for one mode)`,
          );
        if (kc.run.usesSimulator) {
          const spec = parsePolicySpec(kc.run.model);
          if (!['oracle', 'naive', 'flaky'].includes(spec.name))
            throw new UsageError(
              `toolgauge maze: --model sim:${spec.name} has no Maze behaviour (use sim:oracle, sim:naive or sim:flaky)`,
            );
        }
        if (m.judgeModel) await checkJudge(kc.run, m);
      },
    },
    argv,
    env,
  );
}

/** The run's tasks; a bad tool or task file (DataError) is one line and exit 2, as docs/maze-tools.md says. */
function tasksOrUsageError(m: MazeConfig): ReturnType<typeof mazeTasksOf> {
  try {
    return mazeTasksOf(m);
  } catch (err) {
    if (err instanceof DataError) throw new UsageError(`toolgauge maze: ${err.message}`);
    throw err;
  }
}

/**
 * `--judge-model` before any request: a simulated judge is `sim:judge`; a real one has an endpoint that answers
 * (checked once, in seconds, rather than as a judge error on every run).
 */
async function checkJudge(run: RunConfig, m: MazeConfig): Promise<void> {
  const model = m.judgeModel!;
  if (isSimModel(model)) {
    let name: string;
    try {
      name = parsePolicySpec(model).name;
    } catch (err) {
      throw new UsageError(`toolgauge maze: --judge-model ${(err as Error).message}`);
    }
    if (name !== 'judge')
      throw new UsageError(`toolgauge maze: --judge-model sim:${name} cannot judge; the simulated judge is sim:judge`);
  }
  let url: string | undefined;
  try {
    url = judgeEndpoint(run, m, undefined);
  } catch (err) {
    throw new UsageError(`toolgauge maze: ${(err as Error).message}`);
  }
  if (!url || judgeUsesSimulator(m) || run.cache === 'replay') return;
  try {
    await checkEndpoint({ baseUrl: url, apiKey: run.apiKey, model });
  } catch (err) {
    if (err instanceof EndpointUnavailable) throw new UsageError(`toolgauge maze: --judge-model: ${err.message}`);
    throw err;
  }
}
