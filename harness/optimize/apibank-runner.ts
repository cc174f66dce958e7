import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '../core/config.ts';
import { tracePath } from '../kit/names.ts';
import { suiteTrialSampling } from '../kit/sampling.ts';
import type { RunContext } from '../kit/types.ts';
import type { ModelClient } from '../model/client.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { ApibankSettings } from '../apibank/settings.ts';
import { apibankSuite } from '../apibank/suite.ts';
import {
  type ApibankData,
  combinedId,
  DATA_LAYOUT,
  LEVELS,
  readManifest,
  selectTasks,
  type ApibankTask,
} from '../apibank/tasks.ts';
import { drawSplits, type SplitOptions, type Splits } from './splits.ts';
import type { Candidate, RolePrompts, RolloutResult, RolloutRunner } from './types.ts';

/**
 * The optimizer's bridge to API-Bank, as the reference's GEPA/MIPRO datasets use it: the pool is every curated task
 * of the three levels (combined ids, stratified by level), the reference's 100 frozen eval ids are kept out of
 * train and val, and the metric is the suite's own scorer (1 when correct, else 0; an undetermined verdict is 0 and
 * says so in the feedback).
 */
export function apibankPool(data: ApibankData): {
  rows: Array<{ id: string; stratum: string }>;
  evalIds: ReadonlySet<string>;
  tasks: Map<string, ApibankTask>;
} {
  const tasks = new Map<string, ApibankTask>();
  for (const level of LEVELS)
    for (const t of selectTasks(data, { level }))
      tasks.set(combinedId(level, t.id), { ...t, id: combinedId(level, t.id) });
  const evalIds = new Set(readManifest(join(data.root, DATA_LAYOUT.evalIds)));
  return { rows: [...tasks.values()].map((t) => ({ id: t.id, stratum: `L${t.level}` })), evalIds, tasks };
}

/** Seeded train/val splits balanced across levels, outside the frozen eval ids (unless allowEvalIds). */
export function apibankSplits(data: ApibankData, o: Omit<SplitOptions, 'evalIds'>): Splits {
  const pool = apibankPool(data);
  return drawSplits(pool.rows, { ...o, evalIds: pool.evalIds });
}

/** A candidate's prompts as files in the reference's layout (`<dir>/<topology>/apibank/<role>.txt`). */
export function writeApibankPrompts(dir: string, topology: string, prompts: RolePrompts): string {
  mkdirSync(join(dir, topology, 'apibank'), { recursive: true });
  for (const [role, text] of Object.entries(prompts)) {
    const file = join(dir, topology, 'apibank', `${role}.txt`);
    if (!existsSync(file)) writeFileSync(file, text.trimEnd() + '\n');
  }
  return dir;
}

export interface ApibankRunnerOptions {
  run: RunConfig;
  settings: ApibankSettings;
  tasks: ReadonlyMap<string, ApibankTask>;
  candidatesDir: string;
  client: () => ModelClient;
  sandbox: () => Sandbox;
  outDir: string;
}

/** One rollout = the suite's own `run` on one task with the candidate's prompts. */
export function apibankRunner(o: ApibankRunnerOptions): RolloutRunner {
  return async (c: Candidate, rowId: string): Promise<RolloutResult> => {
    const task = o.tasks.get(rowId);
    if (!task) throw new Error(`no API-Bank task '${rowId}'`);
    const promptsDir = writeApibankPrompts(join(o.candidatesDir, c.id), o.settings.topology, c.prompts);
    const settings = { ...o.settings, promptsDir };
    const ctx: RunContext<ApibankSettings> = {
      run: o.run,
      settings,
      trial: 0,
      outDir: o.outDir,
      client: o.client,
      sampling: suiteTrialSampling(apibankSuite, o.run, settings, 0),
      sandbox: o.sandbox,
      tracePath,
    };
    const done = await apibankSuite.run(task, ctx);
    const m = done.meta;
    const results = done.records?.['results.jsonl'] as { predicted_answer?: string; question?: string } | undefined;
    return {
      score: m.correct === true && !m.error ? 1 : 0,
      error: m.error,
      tokens: { prompt: 0, completion: 0, total: m.total_tokens },
      feedback: {
        question: results?.question ?? '',
        gold: task.gold_api_call,
        predicted: results?.predicted_answer ?? '',
        correct: m.correct === true,
        rule: m.correct === null ? 'undetermined' : m.stage,
        error: m.error,
        toolCalls: 0,
        toolErrors: m.correct === false && m.reason ? [m.reason.slice(0, 300)] : [],
        answeredBy: null,
        runs: [],
        vote: null,
        forcedFinal: false,
      },
    };
  };
}
