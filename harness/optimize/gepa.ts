import { deriveSeed, Rng } from '../core/rng.ts';
import { BudgetExhausted, type Engine } from './engine.ts';
import { commonAncestor, mergePrompts } from './merge.ts';
import { paretoFront, selectFromFront } from './pareto.ts';
import { blindRewritePrompt, parseInstruction, reflectionPrompt, type ReflectionContext } from './reflection.ts';
import type { Candidate, RolePrompts, SearchProblem } from './types.ts';

/**
 * GEPA (Agrawal et al., 2025), reflective prompt evolution over a topology's role prompts:
 *   - a pool of candidates, each scored on every validation row;
 *   - each step draws a parent from the Pareto front of those per-row scores (pareto.ts), picks its next role
 *     round-robin, runs it on a training minibatch, and asks the reflection model for a new instruction for that
 *     role from the minibatch's traces and the suite's feedback;
 *   - the child (the parent with that one role rewritten) runs on the same minibatch and is accepted only when it
 *     scores higher there; an accepted child is scored on the whole validation set and joins the pool;
 *   - after an accepted child, a merge of two front candidates with a common ancestor is tried (optional): scored
 *     on a few validation rows, kept when it does at least as well as both parents there, then fully validated;
 *   - every rollout counts against the budget (a (candidate, row) pair runs once), and the search stops before a
 *     batch that would exceed it. The best candidate is the one with the highest validation mean.
 * Every step is a pure function of the seed and the results so far, which is what lets a resumed run replay it.
 */
export interface GepaOptions extends SearchProblem {
  /** Training rows per reflection (GEPA's default is 3). */
  minibatch: number;
  merge: boolean;
  maxMerges: number;
  /** Validation rows a merge is first tried on. */
  mergeSubsample: number;
  /** Skip reflection when the parent solved the whole minibatch. */
  skipPerfect: boolean;
  /** Stop after this many steps in a row that ran nothing new (nothing left to learn, or a stuck reflection model). */
  maxIdleSteps: number;
  /** A hard cap on steps (default: none). */
  maxSteps?: number;
  /**
   * Broken variants, for the calibration tests only (each must not produce a credible gain on held-out rows):
   * `reflection: 'none'` rewrites without feedback; `acceptance: 'inverted'` keeps children that do worse;
   * `trainOn: 'val'` draws the minibatches from the validation rows (leakage). `acceptance: 'always'` keeps every
   * child, `'geq'` keeps children that merely tie (each then costs a full validation). `selection: 'best'` takes
   * the parent with the best validation mean instead of drawing from the Pareto front: with `merge: false`, a
   * reflective greedy hill-climber (a baseline, not a broken variant).
   */
  ablation?: { reflection?: 'none'; acceptance?: 'inverted' | 'always' | 'geq'; trainOn?: 'val'; selection?: 'best' };
}

export interface SearchResult {
  stopReason: string;
  steps: number;
}

export const GEPA_DEFAULTS = {
  minibatch: 3,
  merge: true,
  maxMerges: 5,
  mergeSubsample: 5,
  skipPerfect: true,
  maxIdleSteps: 30,
} as const;

export async function runGepa(engine: Engine, o: GepaOptions): Promise<SearchResult> {
  const say = o.say ?? (() => undefined);
  const seed = engine.candidate(o.seedPrompts, [], null, 'seed', 0).candidate;
  try {
    await engine.validate(seed, o.val);
  } catch (err) {
    if (err instanceof BudgetExhausted)
      return {
        stopReason: `the budget (${engine.budget}) does not cover the seed's validation (${o.val.length} rollouts)`,
        steps: 0,
      };
    throw err;
  }
  say(`seed ${seed.id}: validation ${engine.valMean(seed.id).toFixed(3)} (${engine.spent}/${engine.budget} rollouts)`);
  const sampler = new MinibatchSampler(o.ablation?.trainOn === 'val' ? o.val : o.train, o.minibatch, o.seed);
  const nextRole = new Map<string, number>();
  let mergesLeft = o.merge ? o.maxMerges : 0;
  let mergeDue = false;
  let idle = 0;
  let step = 0;
  try {
    for (step = 1; o.maxSteps === undefined || step <= o.maxSteps; step++) {
      if (idle >= o.maxIdleSteps) return { stopReason: `${idle} steps in a row ran nothing new`, steps: step - 1 };
      const before = engine.spent;
      if (mergeDue && mergesLeft > 0) {
        mergeDue = false;
        if (await tryMerge(engine, o, step)) mergesLeft--;
        idle = engine.spent === before ? idle + 1 : 0;
        continue;
      }
      const pool = engine.validated();
      const scores = pool.map((c) => o.val.map((r) => engine.valScores(c.id)!.get(r) ?? 0));
      const parent =
        o.ablation?.selection === 'best'
          ? engine.best()!
          : pool[selectFromFront(paretoFront(scores), new Rng(deriveSeed(o.seed, 'gepa-select', step)))]!;
      const turn = nextRole.get(parent.id) ?? 0;
      nextRole.set(parent.id, turn + 1);
      const role = o.roles[turn % o.roles.length]!;
      const rows = sampler.next();
      const parentRuns = await engine.evaluate(parent, rows, 'minibatch');
      const parentScore = sum(parentRuns.map((r) => r.score));
      if (o.skipPerfect && parentScore === rows.length) {
        engine.o.log.event(`step:${step}`, 'step', {
          step,
          parent: parent.id,
          role,
          rows,
          outcome: 'parent solved the whole minibatch',
        });
        idle = engine.spent === before ? idle + 1 : 0;
        continue;
      }
      const ctx: ReflectionContext = {
        topology: o.topology,
        role,
        roles: o.roles,
        answerer: o.answerer,
        current: parent.prompts[role]!,
      };
      const prompt = o.ablation?.reflection === 'none' ? blindRewritePrompt(ctx) : reflectionPrompt(ctx, parentRuns);
      const text = parseInstruction(await engine.reflect(`reflect:${step}`, prompt));
      if (!text || text === parent.prompts[role]!.trim()) {
        engine.o.log.event(`step:${step}`, 'step', {
          step,
          parent: parent.id,
          role,
          rows,
          outcome: 'the reflection proposed no change',
        });
        idle = engine.spent === before ? idle + 1 : 0;
        continue;
      }
      const made = engine.candidate({ ...parent.prompts, [role]: text }, [parent.id], role, 'reflection', step);
      if (!made.fresh) {
        engine.o.log.event(`step:${step}`, 'step', {
          step,
          parent: parent.id,
          role,
          rows,
          outcome: `the reflection proposed ${made.candidate.id} again`,
        });
        idle = engine.spent === before ? idle + 1 : 0;
        continue;
      }
      const child = made.candidate;
      const childRuns = await engine.evaluate(child, rows, 'minibatch');
      const childScore = sum(childRuns.map((r) => r.score));
      const accepted = acceptChild(o.ablation?.acceptance, childScore, parentScore);
      engine.o.log.event(`step:${step}`, 'step', {
        step,
        parent: parent.id,
        child: child.id,
        role,
        rows,
        parent_scores: parentRuns.map((r) => r.score),
        child_scores: childRuns.map((r) => r.score),
        accepted,
      });
      if (accepted) {
        const mean = await engine.validate(child, o.val);
        say(
          `step ${step}: ${child.id} (${role} of ${parent.id}) accepted ${childScore}/${rows.length} > ${parentScore}/${rows.length}; validation ${mean.toFixed(3)} (${engine.spent}/${engine.budget} rollouts)`,
        );
        mergeDue = true;
      }
      idle = engine.spent === before ? idle + 1 : 0;
    }
    return { stopReason: `reached --max-steps ${o.maxSteps}`, steps: step - 1 };
  } catch (err) {
    if (err instanceof BudgetExhausted) return { stopReason: `budget: ${err.message}`, steps: step };
    throw err;
  }
}

/** GEPA's acceptance rule: a child must score strictly higher than its parent on the same minibatch. */
function acceptChild(rule: NonNullable<GepaOptions['ablation']>['acceptance'], child: number, parent: number): boolean {
  if (rule === 'inverted') return child < parent;
  if (rule === 'always') return true;
  if (rule === 'geq') return child >= parent;
  return child > parent;
}

/** One merge attempt: true when a merged candidate was made (accepted or not). Exported for tests. */
export async function tryMerge(engine: Engine, o: GepaOptions, step: number): Promise<boolean> {
  const pool = engine.validated();
  const scores = pool.map((c) => o.val.map((r) => engine.valScores(c.id)!.get(r) ?? 0));
  const front = paretoFront(scores).survivors.map((i) => pool[i]!);
  const parentsOf = (id: string) => engine.byId(id).parents;
  const options: Array<{ a: Candidate; b: Candidate; prompts: RolePrompts }> = [];
  for (let i = 0; i < front.length; i++) {
    for (let j = i + 1; j < front.length; j++) {
      const a = front[i]!;
      const b = front[j]!;
      const anc = commonAncestor(a.id, b.id, parentsOf);
      if (!anc) continue;
      const prompts = mergePrompts(
        engine.byId(anc).prompts,
        a.prompts,
        b.prompts,
        engine.valMean(a.id) >= engine.valMean(b.id) ? 'a' : 'b',
      );
      if (prompts) options.push({ a, b, prompts });
    }
  }
  const rng = new Rng(deriveSeed(o.seed, 'gepa-merge', step));
  const fresh = options.filter((x) => !engine.candidates.some((c) => sameprompts(c.prompts, x.prompts)));
  if (!fresh.length) return false;
  const pick = rng.pick(fresh);
  const merged = engine.candidate(pick.prompts, [pick.a.id, pick.b.id], null, 'merge', step).candidate;
  // The rows where the parents differ say the most about which of them a merge should match; then any others.
  const sa = engine.valScores(pick.a.id)!;
  const sb = engine.valScores(pick.b.id)!;
  const differ = rng.shuffle(o.val.filter((r) => sa.get(r) !== sb.get(r)));
  const same = rng.shuffle(o.val.filter((r) => sa.get(r) === sb.get(r)));
  const rows = [...differ, ...same].slice(0, Math.min(o.mergeSubsample, o.val.length));
  const runs = await engine.evaluate(merged, rows, 'merge');
  const ms = sum(runs.map((r) => r.score));
  const as = sum(rows.map((r) => sa.get(r) ?? 0));
  const bs = sum(rows.map((r) => sb.get(r) ?? 0));
  const accepted = ms >= Math.max(as, bs);
  engine.o.log.event(`merge:${step}`, 'merge', {
    step,
    a: pick.a.id,
    b: pick.b.id,
    merged: merged.id,
    rows,
    merged_score: ms,
    a_score: as,
    b_score: bs,
    accepted,
  });
  if (accepted) {
    const mean = await engine.validate(merged, o.val);
    o.say?.(
      `step ${step}: merge ${merged.id} of ${pick.a.id} and ${pick.b.id}; validation ${mean.toFixed(3)} (${engine.spent}/${engine.budget} rollouts)`,
    );
  }
  return true;
}

function sameprompts(a: RolePrompts, b: RolePrompts): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

function sum(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0);
}

/**
 * Minibatches in seeded epochs: each epoch is a fresh shuffle of the rows, cut into consecutive batches; a batch
 * that would straddle two epochs takes the rest of the old one and fills up from the new one, without repeats.
 */
export class MinibatchSampler {
  private epoch = 0;
  private order: string[] = [];
  private pos = 0;
  constructor(
    private readonly rows: readonly string[],
    private readonly size: number,
    private readonly seed: number,
  ) {
    if (!rows.length) throw new Error('optimize: no rows to draw minibatches from');
    this.refill();
  }

  private refill(): void {
    this.order = new Rng(deriveSeed(this.seed, 'gepa-epoch', this.epoch++)).shuffle(this.rows);
    this.pos = 0;
  }

  next(): string[] {
    const want = Math.min(this.size, this.rows.length);
    const out: string[] = [];
    while (out.length < want) {
      if (this.pos >= this.order.length) this.refill();
      const r = this.order[this.pos++]!;
      if (!out.includes(r)) out.push(r);
    }
    return out;
  }
}
