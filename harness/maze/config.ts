import { resolve } from 'node:path';
import { z } from 'zod';
import { parseEnv, type RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { mazeRoot } from './output.ts';
import { COMPLEXITIES, DEFAULT_CASES_DIR, MODES, type Complexity, type Mode } from './task.ts';

/** Maze settings from the environment (the `toolgauge maze` flags map onto these). */
const Env = z.object({
  TOOLGAUGE_MAZE_CATEGORIES: z.string().default(COMPLEXITIES.join(',')),
  TOOLGAUGE_MAZE_MODES: z.string().default(MODES.join(',')),
  TOOLGAUGE_MAZE_ONLY: z.string().optional(),
  TOOLGAUGE_MAZE_TASK_ID: z.string().optional(),
  TOOLGAUGE_MAZE_AGENT: z.enum(['fc', 'prompt']).default('fc'),
  TOOLGAUGE_MAZE_JUDGE: z.enum(['compat', 'strict']).default('compat'),
  TOOLGAUGE_MAZE_MAX_TURNS: z.string().regex(/^\d+$/).transform(Number).default(20),
  TOOLGAUGE_MAZE_CASES: z.string().optional(),
  TOOLGAUGE_MAZE_TOOLS: z.string().optional(),
  TOOLGAUGE_MAZE_TASKS: z.string().optional(),
});

export interface MazeConfig {
  categories: Complexity[];
  modes: Mode[];
  /** `--only` and `--task-id` together: task ids or task-plus-mode run ids (harness/maze/selection.ts). */
  only: string[] | undefined;
  agent: 'fc' | 'prompt';
  judge: 'compat' | 'strict';
  maxTurns: number;
  casesDir: string;
  /** `--tools`: library files or folders added to the built-in tools (docs/maze-tools.md). */
  toolPaths: string[];
  /** `--tasks`: a user's task file, run instead of the built-in task graphs. */
  tasksFile: string | undefined;
}

export function readMazeConfig(env: NodeJS.ProcessEnv): MazeConfig {
  const e = parseEnv(Env, env);
  const list = <T extends string>(raw: string, allowed: readonly T[], name: string): T[] => {
    const xs = raw.split(',').map((s) => s.trim()).filter(Boolean);
    for (const x of xs) if (!allowed.includes(x as T)) throw new UsageError(`${name}: '${x}' is not one of ${allowed.join(',')}`);
    return xs as T[];
  };
  return {
    categories: list(e.TOOLGAUGE_MAZE_CATEGORIES.toLowerCase(), COMPLEXITIES, '--categories'),
    modes: list(e.TOOLGAUGE_MAZE_MODES.toUpperCase(), MODES, '--modes'),
    only: ids(e.TOOLGAUGE_MAZE_ONLY, e.TOOLGAUGE_MAZE_TASK_ID),
    agent: e.TOOLGAUGE_MAZE_AGENT,
    judge: e.TOOLGAUGE_MAZE_JUDGE,
    maxTurns: e.TOOLGAUGE_MAZE_MAX_TURNS,
    casesDir: e.TOOLGAUGE_MAZE_CASES ? resolve(e.TOOLGAUGE_MAZE_CASES) : DEFAULT_CASES_DIR,
    toolPaths: (e.TOOLGAUGE_MAZE_TOOLS ?? '').split(',').map((s) => s.trim()).filter(Boolean).map((p) => resolve(p)),
    tasksFile: e.TOOLGAUGE_MAZE_TASKS ? resolve(e.TOOLGAUGE_MAZE_TASKS) : undefined,
  };
}

/** The ids of `--only` and `--task-id` in the order given; undefined when neither is set. */
function ids(...raws: Array<string | undefined>): string[] | undefined {
  const given = raws.filter((r): r is string => r !== undefined);
  if (given.length === 0) return undefined;
  return [...new Set(given.flatMap((r) => r.split(',').map((s) => s.trim()).filter(Boolean)))];
}

/**
 * `--out-dir DIR`, else `results/<model>/<fc|mcp>/` as ToolMaze names its agent folders (`mcp` is its prompt-based
 * tool calling, toolgauge's `--agent prompt`).
 */
export function mazeOutDir(cfg: Pick<RunConfig, 'outDir' | 'model'>, m: Pick<MazeConfig, 'agent'>): string {
  if (cfg.outDir) return resolve(cfg.outDir);
  const root = mazeRoot(resolve('results'), cfg.model);
  return m.agent === 'fc' ? root : resolve(root, '..', 'mcp');
}
