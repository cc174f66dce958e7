import { readConfig } from '../../core/config.ts';
import { UsageError } from '../../core/errors.ts';
import { mazeOutDir, readMazeConfig } from '../../maze/config.ts';
import { parsePolicySpec } from '../../sim/policy-spec.ts';
import { flagSchemas, parseFlags, type FlagSpecs } from '../flags.ts';
import { flagsToEnv, MODEL_FLAGS } from '../model-flags.ts';
import { reportPathOf, runEvalSuites } from '../run-vitest.ts';

const FLAGS: FlagSpecs = {
  ...MODEL_FLAGS,
  categories: { type: 'string', description: 'c1,c2,c3,c4' },
  modes: { type: 'string', description: 'P0,P1,P2,P3,P4' },
  only: { type: 'string', description: 'task ids, comma-separated' },
  agent: { type: 'string', values: ['fc', 'prompt'], description: 'native tool calls, or tools described in the prompt' },
  judge: { type: 'string', values: ['compat', 'strict'] },
  'max-turns': { type: 'string', schema: flagSchemas.positiveInt },
  cases: { type: 'string', description: 'a directory with c1.json … c4.json' },
};

const ENV = {
  categories: 'TOOLGAUGE_MAZE_CATEGORIES',
  modes: 'TOOLGAUGE_MAZE_MODES',
  only: 'TOOLGAUGE_MAZE_ONLY',
  agent: 'TOOLGAUGE_MAZE_AGENT',
  judge: 'TOOLGAUGE_MAZE_JUDGE',
  'max-turns': 'TOOLGAUGE_MAZE_MAX_TURNS',
  cases: 'TOOLGAUGE_MAZE_CASES',
};

export const USAGE = `toolgauge maze [--categories c1,c2,c3,c4] [--modes P0,P1,P2,P3,P4] [--only TASK_ID,…] [--agent fc|prompt]
               [--judge compat|strict] [--max-turns N] [--cases DIR] [--model NAME] [--base-url URL] [--concurrency N]
               [--out-dir DIR] [--resume] [--gate EXPR] [--shard i/n] [-t PATTERN] [--print-report]`;

/** `toolgauge maze`: C1–C4 task graphs × P0–P4 perturbations through the eval suites in suites/maze/. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags('maze', argv, FLAGS);
  flagsToEnv(values, ENV);
  const cfg = readConfig();
  const maze = readMazeConfig();
  if (cfg.trials > 1) throw new UsageError('toolgauge maze: --trials is not available for maze yet (one run per task and mode)');
  if (cfg.usesSimulator) {
    try {
      const spec = parsePolicySpec(cfg.model);
      if (!['oracle', 'naive', 'flaky'].includes(spec.name)) throw new Error(`sim:${spec.name} has no Maze behaviour (use sim:oracle, sim:naive or sim:flaky)`);
    } catch (err) {
      throw new UsageError(`toolgauge maze: --model ${(err as Error).message}`);
    }
  }
  const files = maze.categories.map((c) => `suites/maze/${c}.eval.ts`);
  return runEvalSuites(files, {
    shard: values.shard as string | undefined,
    filter: values.filter as string | undefined,
    blobDir: values['blob-dir'] as string | undefined,
    mergeReports: values['merge-reports'] as string | undefined,
    reportPath: values['print-report'] ? reportPathOf(mazeOutDir(cfg, maze)) : undefined,
  });
}
