// ToolMaze's README commands, run as written by `toolgauge maze` (its `python evaluation/scripts/run_eval.py`,
// `run_api_eval.py` and `run_batch_api_eval.py` ↔ `toolgauge maze`): each command's flags are parsed by the command
// itself and checked in the plan and settings it builds. Nothing runs: the runner below stops after the checks.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSuiteCommand, type CommandRunner } from '../kit/command.ts';
import { parseFlags } from '../kit/flags/flags.ts';
import { MODEL_FLAGS, settingsSource } from '../kit/flags/model-flags.ts';
import type { RunPlan } from '../kit/plan.ts';
import { run } from './command.ts';
import type { MazeConfig } from './config.ts';

/**
 * The commands of ToolMaze's README (README.md of the ToolMaze project, "4. Run evaluation", and the README of its
 * `evaluation/` package, "3. Run Evaluation"), copied as written, with the script each one runs.
 */
const RUN_EVAL = [
  'python evaluation/scripts/run_eval.py --task-id C1_task_001_P0',
  'python evaluation/scripts/run_eval.py --modes P0',
  'python evaluation/scripts/run_eval.py --task-category c3 --modes P0 P1 P2 P3 P4',
  'python evaluation/scripts/run_eval.py --task-category c4 --modes P0 P1 P2 P3 P4',
  'python evaluation/scripts/run_eval.py --modes P0 P1 P2 P3 P4',
  'python evaluation/scripts/run_eval.py --agent-type openai --model gpt-4o --modes P0 P1',
];
const RUN_API_EVAL = [
  'python run_api_eval.py --models gpt-4o',
  'python run_api_eval.py --models gpt-4o --categories c3 c4',
  'python run_api_eval.py --models gpt-4o --modes P2 P4',
];
const RUN_BATCH_API_EVAL = [
  'python run_batch_api_eval.py --categories c3 c4',
  'python run_batch_api_eval.py --modes P2 P4',
];

const root = mkdtempSync(join(tmpdir(), 'tg-maze-source-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The words after the script, as the shell hands them over. */
const argsOf = (command: string) => command.split(' ').slice(2);

interface Planned {
  argv: string[];
  plan: RunPlan;
  settings: MazeConfig;
}

/** A runner that makes the command's checks and keeps what they built, and runs nothing. */
function capture(): { runner: CommandRunner; runs: Planned[] } {
  const runs: Planned[] = [];
  return {
    runs,
    runner: {
      async runSuite(c, argv, env) {
        const { values } = parseFlags(c.command, argv, { ...MODEL_FLAGS, ...c.flags });
        const r = checkSuiteCommand(c, values, settingsSource(env ?? process.env, values, c.env));
        runs.push({ argv, plan: r.plan, settings: r.settings as MazeConfig });
        return 0;
      },
    },
  };
}

/** One `toolgauge maze` run of a ToolMaze command (on the simulator unless the command names a model). */
async function planOf(command: string): Promise<Planned> {
  const { runner, runs } = capture();
  const args = argsOf(command);
  await run(args.includes('--model') ? args : [...args, '--model', 'sim:oracle'], runner);
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

describe("ToolMaze's run_eval.py commands run as `toolgauge maze` with the same words", () => {
  it('--task-id C1_task_001_P0: that one run; the category follows from the id', async () => {
    const { settings } = await planOf(RUN_EVAL[0]!);
    expect(settings.only).toEqual(['C1_task_001_P0']);
    expect(settings.modes).toEqual(['P0', 'P1', 'P2', 'P3', 'P4']);
  });

  it('--modes P0: one mode (run_eval.py runs it on c1, its config file; toolgauge on every category)', async () => {
    const { settings } = await planOf(RUN_EVAL[1]!);
    expect(settings.modes).toEqual(['P0']);
    expect(settings.categories).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  it.each([
    [RUN_EVAL[2]!, ['c3']],
    [RUN_EVAL[3]!, ['c4']],
  ])('%s: one category, the five modes listed after --modes', async (command, categories) => {
    const { settings } = await planOf(command);
    expect(settings.categories).toEqual(categories);
    expect(settings.modes).toEqual(['P0', 'P1', 'P2', 'P3', 'P4']);
  });

  it('--modes P0 P1 P2 P3 P4: every mode', async () => {
    expect((await planOf(RUN_EVAL[4]!)).settings.modes).toEqual(['P0', 'P1', 'P2', 'P3', 'P4']);
  });

  it('--agent-type openai --model gpt-4o --modes P0 P1: that agent and model, two modes', async () => {
    const { plan, settings } = await planOf(`${RUN_EVAL[5]!} --base-url http://127.0.0.1:9/v1`);
    expect(plan.run.model).toBe('gpt-4o');
    expect(settings.agentType).toBe('openai');
    expect(settings.modes).toEqual(['P0', 'P1']);
  });

  it('the comma forms mean the same as the word lists', async () => {
    const words = await planOf('x y --categories c3 c4 --modes P2 P4 --only C3_task_001 C4_task_002');
    const commas = await planOf('x y --categories c3,c4 --modes P2,P4 --only C3_task_001,C4_task_002');
    expect(words.settings).toEqual(commas.settings);
    expect(words.settings.categories).toEqual(['c3', 'c4']);
    expect(words.settings.only).toEqual(['C3_task_001', 'C4_task_002']);
  });

  it('a word list stops at the next flag, and --task-category with --categories is refused in one line', async () => {
    const { settings } = await planOf('x y --modes P1 P3 --judge strict');
    expect(settings.modes).toEqual(['P1', 'P3']);
    expect(settings.judge).toBe('strict');
    await expect(planOf('x y --task-category c3 --categories c4')).rejects.toThrow(
      /^toolgauge maze: give --categories or --task-category, not both$/,
    );
    await expect(planOf('x y --modes P0 P9')).rejects.toThrow(/--modes: 'P9' is not one of/);
  });
});

describe("ToolMaze's model runners (run_api_eval.py, run_batch_api_eval.py) run as `toolgauge maze --models`", () => {
  /** A batch's runs, each model's plan; the batch writes its report under a temporary folder. */
  async function batchOf(args: string[]): Promise<Planned[]> {
    const { runner, runs } = capture();
    const w = process.stdout.write;
    const e = process.stderr.write;
    process.stdout.write = (() => true) as never;
    process.stderr.write = (() => true) as never;
    try {
      await run([...args, '--out-dir', join(root, String(Math.random()).slice(2))], runner);
    } finally {
      process.stdout.write = w;
      process.stderr.write = e;
    }
    return runs;
  }

  it.each([
    [RUN_API_EVAL[0]!, ['c1', 'c2', 'c3', 'c4'], ['P0', 'P1', 'P2', 'P3', 'P4']],
    [RUN_API_EVAL[1]!, ['c3', 'c4'], ['P0', 'P1', 'P2', 'P3', 'P4']],
    [RUN_API_EVAL[2]!, ['c1', 'c2', 'c3', 'c4'], ['P2', 'P4']],
  ])('%s', async (command, categories, modes) => {
    const runs = await batchOf([...argsOf(command), '--base-url', 'http://127.0.0.1:9/v1']);
    // The stand-in leaves no summary, so the batch retries each model once with --resume.
    expect(runs.map((r) => r.plan.run.model)).toEqual(['gpt-4o', 'gpt-4o']);
    for (const r of runs) {
      expect(r.settings.categories).toEqual(categories);
      expect(r.settings.modes).toEqual(modes);
    }
  });

  it.each([
    [RUN_BATCH_API_EVAL[0]!, ['c3', 'c4'], ['P0', 'P1', 'P2', 'P3', 'P4']],
    [RUN_BATCH_API_EVAL[1]!, ['c1', 'c2', 'c3', 'c4'], ['P2', 'P4']],
  ])('%s, its MODELS dict given as --models', async (command, categories, modes) => {
    const runs = await batchOf([...argsOf(command), '--models', 'sim:oracle', 'sim:naive']);
    expect([...new Set(runs.map((r) => r.plan.run.model))]).toEqual(['sim:oracle', 'sim:naive']);
    for (const r of runs) {
      expect(r.settings.categories).toEqual(categories);
      expect(r.settings.modes).toEqual(modes);
    }
  });
});
