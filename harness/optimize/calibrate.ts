import { rmSync } from 'node:fs';
import type { ToolhopRow } from '../toolhop/row.ts';
import { GEPA_DEFAULTS, runGepa, type GepaOptions } from './gepa.ts';
import { paretoFront } from './pareto.ts';
import { drawSplits, toolhopEvalIds } from './splits.ts';
import { fixtureEngine } from './testing.ts';
import {
  MERGE_HAND_WRITTEN,
  MERGE_ROLES,
  MERGE_SEED,
  mergeCritic,
  mergeGroup,
  mergeRunner,
  mergeSolveChance,
} from './merge-fixture.ts';
import {
  criticReflector,
  HAND_WRITTEN,
  hiddenType,
  ROLES,
  SEED_PROMPTS,
  solveChance,
  tradeoffRunner,
  type CriticOptions,
} from './tradeoff.ts';
import type { RolePrompts } from './types.ts';

/**
 * GEPA, its broken variants and the baselines on the trade-off fixture (tradeoff.ts), in process: one function per
 * method and seed, returning the held-out accuracy of the prompts it ends with and what the search did. The same
 * seed gives every method the same splits and the same per-row draws, so methods compare paired.
 */
export const METHODS = [
  'seed',
  'hand-written',
  'random',
  'greedy',
  'gepa',
  'gepa, always accept',
  'gepa, >= acceptance',
  'gepa, no merge',
] as const;
export type Method = (typeof METHODS)[number];

const SEARCH: Record<Exclude<Method, 'seed' | 'hand-written'>, Partial<GepaOptions>> = {
  // Blind proposals (no examples, no feedback), kept on a strict minibatch gain, always from the best so far.
  random: { merge: false, ablation: { reflection: 'none', selection: 'best' } },
  // Reflective hill-climbing: the best candidate so far is always the parent; no Pareto front, no merge.
  greedy: { merge: false, ablation: { selection: 'best' } },
  gepa: {},
  'gepa, always accept': { ablation: { acceptance: 'always' } },
  'gepa, >= acceptance': { ablation: { acceptance: 'geq' } },
  'gepa, no merge': { merge: false },
};

export interface CalibrationOptions {
  /** `tradeoff` (tradeoff.ts, the default) or `merge` (merge-fixture.ts: one lineage fixes one group, merge both). */
  fixture?: 'tradeoff' | 'merge';
  budget: number;
  trainSize: number;
  valSize: number;
  critic?: Partial<CriticOptions>;
  /** The fixture's per-prompt luck (tradeoff.ts LUCK). */
  luck?: number;
  /**
   * Steps in a row that ran nothing new before a search stops (default 500: every method may use the whole
   * budget; such steps cost no rollout, only time).
   */
  maxIdleSteps?: number;
}
export const CALIBRATION_DEFAULTS: CalibrationOptions = { budget: 600, trainSize: 30, valSize: 20 };

export interface CalibrationResult {
  method: Method;
  seed: number;
  /** Per held-out row, its solve chance under the prompts the method ended with (the expected accuracy there). */
  heldout: Map<string, number>;
  heldoutMean: number;
  valBest: number | null;
  spent: number;
  prompts: RolePrompts;
  /** Validated candidates, the Pareto front's size over them at the end, merges tried and kept. */
  candidates: number;
  front: number;
  mergesTried: number;
  mergesKept: number;
  /** Per kept merge: its validation mean minus the better parent's. */
  mergeGains: number[];
}

export async function calibrate(
  rows: readonly ToolhopRow[],
  method: Method,
  seed: number,
  o: CalibrationOptions = CALIBRATION_DEFAULTS,
): Promise<CalibrationResult> {
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  const s = drawSplits(
    rows.map((r) => ({ id: String(r.id), stratum: r.answer_type })),
    { trainSize: o.trainSize, valSize: o.valSize, seed, allowEvalIds: false, evalIds: toolhopEvalIds() },
  );
  const merge = o.fixture === 'merge';
  const chance = (prompts: RolePrompts, row: ToolhopRow) =>
    merge ? mergeSolveChance(prompts, mergeGroup(row)) : solveChance(prompts, hiddenType(row));
  const seedPrompts = merge ? MERGE_SEED : SEED_PROMPTS;
  // Held-out rows are scored by their solve chance (no draw): the prompts' true accuracy there, free of luck.
  const score = (prompts: RolePrompts) => new Map(s.heldout.map((id) => [id, chance(prompts, byId.get(id)!)]));
  const finish = (
    prompts: RolePrompts,
    rest: Omit<CalibrationResult, 'method' | 'seed' | 'heldout' | 'heldoutMean' | 'prompts'>,
  ): CalibrationResult => {
    const heldout = score(prompts);
    return { method, seed, heldout, heldoutMean: mean([...heldout.values()]), prompts, ...rest };
  };
  const none = { valBest: null, spent: 0, candidates: 0, front: 0, mergesTried: 0, mergesKept: 0, mergeGains: [] };
  if (method === 'seed') return finish(seedPrompts, none);
  if (method === 'hand-written') return finish(merge ? MERGE_HAND_WRITTEN : HAND_WRITTEN, none);

  const { engine, log, dir } = fixtureEngine({
    runner: merge ? mergeRunner(byId, seed, o.luck) : tradeoffRunner(byId, seed, o.luck),
    reflector: merge
      ? mergeCritic({ ...(o.critic?.misread !== undefined ? { misread: o.critic.misread } : {}), seed })
      : criticReflector({ ...o.critic, seed }),
    budget: o.budget,
    concurrency: 1,
  });
  // The search's log is scratch here: its folder goes when the run ends (a bench makes thousands of them).
  try {
    await runGepa(engine, {
      ...GEPA_DEFAULTS,
      // The topology's name is part of the reflection prompt, which seeds the critic: the trade-off fixture keeps its own.
      topology: merge ? 'merge fixture' : 'two-role fixture',
      roles: merge ? MERGE_ROLES : ROLES,
      answerer: 'verifier',
      seedPrompts,
      train: s.train,
      val: s.val,
      seed,
      maxIdleSteps: o.maxIdleSteps ?? 500,
      ...SEARCH[method],
    });
    const best = engine.best()!;
    const pool = engine.validated();
    const front = paretoFront(pool.map((c) => s.val.map((r) => engine.valScores(c.id)!.get(r) ?? 0))).survivors.length;
    const merges = engine.candidates.filter((c) => c.origin === 'merge');
    const kept = merges.filter((c) => engine.valScores(c.id));
    return finish(best.prompts, {
      valBest: engine.valMean(best.id),
      spent: engine.spent,
      candidates: pool.length,
      front,
      mergesTried: merges.length,
      mergesKept: kept.length,
      mergeGains: kept.map((c) => engine.valMean(c.id) - Math.max(...c.parents.map((p) => engine.valMean(p)))),
    });
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}
