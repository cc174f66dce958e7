import { UsageError } from '../core/errors.ts';
import { MODULE_EXT } from '../core/paths.ts';
import type { MazeConfig } from './config.ts';
import { selectRuns } from './selection.ts';
import { mazeSuite } from './suite.ts';
import { loadMazeTasks } from './task.ts';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import { flagSchemas, type FlagSpecs } from '../cli/flags.ts';
import { runSuiteCommand } from '../cli/suite-command.ts';

const FLAGS: FlagSpecs = {
  categories: { type: 'string', description: 'c1,c2,c3,c4' },
  modes: { type: 'string', description: 'P0,P1,P2,P3,P4' },
  only: { type: 'string', description: 'task ids (C1_task_001) or task-plus-mode run ids (C1_task_001_P0), comma-separated' },
  'task-id': { type: 'string', description: 'the same as --only, as ToolMaze names it' },
  agent: { type: 'string', values: ['fc', 'prompt'], description: 'native tool calls, or tools described in the prompt' },
  judge: { type: 'string', values: ['compat', 'strict'] },
  'max-turns': { type: 'string', schema: flagSchemas.positiveInt },
  cases: { type: 'string', description: 'a directory with c1.json … c4.json' },
};

export const USAGE = `toolgauge maze [--categories c1,c2,c3,c4] [--modes P0,P1,P2,P3,P4] [--only|--task-id ID,…] [--agent fc|prompt]
               [--judge compat|strict] [--max-turns N] [--cases DIR] [--model NAME] [--base-url URL] [--concurrency N]
               [--out-dir DIR] [--resume] [--gate EXPR] [--shard i/n] [-t PATTERN] [--print-report]`;

/** `toolgauge maze`: C1–C4 task graphs × P0–P4 perturbations through the eval suites in suites/maze/. */
export function run(argv: string[]): Promise<number> {
  return runSuiteCommand<MazeConfig>(
    {
      command: 'maze',
      suite: mazeSuite,
      flags: FLAGS,
      env: {
        categories: 'TOOLGAUGE_MAZE_CATEGORIES',
        modes: 'TOOLGAUGE_MAZE_MODES',
        only: 'TOOLGAUGE_MAZE_ONLY',
        'task-id': 'TOOLGAUGE_MAZE_TASK_ID',
        agent: 'TOOLGAUGE_MAZE_AGENT',
        judge: 'TOOLGAUGE_MAZE_JUDGE',
        'max-turns': 'TOOLGAUGE_MAZE_MAX_TURNS',
        cases: 'TOOLGAUGE_MAZE_CASES',
      },
      files: ['cases'],
      evalFiles: (m) => m.categories.map((c) => `suites/maze/${c}.eval${MODULE_EXT}`),
      validate(kc, m) {
        const { unknown } = selectRuns(loadMazeTasks(m.casesDir, m.categories), m.modes, m.only);
        if (unknown.length) throw new UsageError(`toolgauge maze: --only/--task-id: no task ${unknown.join(', ')} in ${m.categories.join(',')} (ids are like C1_task_001, or C1_task_001_P0 for one mode)`);
        if (kc.run.trials > 1) throw new UsageError('toolgauge maze: --trials is not available for maze yet (one run per task and mode)');
        if (kc.run.usesSimulator) {
          const spec = parsePolicySpec(kc.run.model);
          if (!['oracle', 'naive', 'flaky'].includes(spec.name)) throw new UsageError(`toolgauge maze: --model sim:${spec.name} has no Maze behaviour (use sim:oracle, sim:naive or sim:flaky)`);
        }
      },
    },
    argv,
  );
}
