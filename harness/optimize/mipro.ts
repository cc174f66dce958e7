import { deriveSeed, Rng } from '../core/rng.ts';
import { BudgetExhausted, type Engine } from './engine.ts';
import { MinibatchSampler, type SearchResult } from './gepa.ts';
import { parseInstruction, PROPOSAL_TIPS, proposalPrompt, type ReflectionContext } from './reflection.ts';
import type { Candidate, SearchProblem } from './types.ts';

/**
 * MIPRO-style instruction search (after DSPy's MIPROv2, instructions only — no few-shot demos):
 *   1. bootstrap: the seed runs on some training rows, giving traces and feedback to ground the proposals;
 *   2. propose: for every role, K new instructions from the proposal model, each from its own sample of the
 *      bootstrapped examples and its own tip, so they differ; the seed's instruction stays option 0;
 *   3. search: each trial picks one option per role — the first trial the seed, then per role the option with the
 *      best upper confidence bound of its minibatch scores so far (ties drawn at random, unseen options first) —
 *      and runs the combination on a validation minibatch; every `fullEvalEvery` trials (and at the end) the
 *      combination with the best minibatch mean that has no full validation yet gets one.
 * The best candidate is the validated combination with the highest validation mean. Budget as in GEPA.
 */
export interface MiproOptions extends SearchProblem {
  /** Proposals per role (K). */
  numCandidates: number;
  numTrials: number;
  /** Validation rows per trial. */
  minibatch: number;
  fullEvalEvery: number;
  /** Training rows the seed runs on to ground the proposals. */
  bootstrapRows: number;
  /** Examples shown in one proposal prompt. */
  examplesPerProposal: number;
}

export const MIPRO_DEFAULTS = {
  numCandidates: 4,
  numTrials: 12,
  minibatch: 5,
  fullEvalEvery: 4,
  bootstrapRows: 8,
  examplesPerProposal: 4,
} as const;

export async function runMipro(engine: Engine, o: MiproOptions): Promise<SearchResult> {
  const say = o.say ?? (() => undefined);
  const seed = engine.candidate(
    o.seedPrompts,
    [],
    null,
    'seed',
    0,
    Object.fromEntries(o.roles.map((r) => [r, 0])),
  ).candidate;
  let trial = 0;
  try {
    await engine.validate(seed, o.val);
    say(
      `seed ${seed.id}: validation ${engine.valMean(seed.id).toFixed(3)} (${engine.spent}/${engine.budget} rollouts)`,
    );

    const bootRows = new Rng(deriveSeed(o.seed, 'mipro-bootstrap'))
      .shuffle(o.train)
      .slice(0, Math.min(o.bootstrapRows, o.train.length));
    const boot = await engine.evaluate(seed, bootRows, 'bootstrap');

    const options: Record<string, string[]> = {};
    for (const role of o.roles) {
      options[role] = [o.seedPrompts[role]!.trim()];
      for (let k = 0; k < o.numCandidates; k++) {
        const rng = new Rng(deriveSeed(o.seed, 'mipro-propose', role, k));
        // Failures first: they are what a new instruction can fix.
        const sample = [
          ...rng.shuffle(boot.filter((r) => r.score === 0)),
          ...rng.shuffle(boot.filter((r) => r.score !== 0)),
        ].slice(0, o.examplesPerProposal);
        const ctx: ReflectionContext = {
          topology: o.topology,
          role,
          roles: o.roles,
          answerer: o.answerer,
          current: o.seedPrompts[role]!,
        };
        const text = parseInstruction(
          await engine.reflect(
            `propose:${role}:${k}`,
            proposalPrompt(ctx, rng.shuffle(sample), PROPOSAL_TIPS[k % PROPOSAL_TIPS.length]!),
          ),
        );
        if (text && !options[role]!.includes(text)) options[role]!.push(text);
      }
      engine.o.log.event(`proposals:${role}`, 'proposals', { role, options: options[role]! });
    }

    const stats = new Map<string, { n: number; s: number }>(); // `${role}\0${option}` → minibatch outcomes
    const byCombo = new Map<string, { c: Candidate; n: number; s: number }>();
    const sampler = new MinibatchSampler(o.val, o.minibatch, deriveSeed(o.seed, 'mipro-minibatch'));
    const validateBestUnvalidated = async () => {
      const pick = [...byCombo.values()]
        .filter((x) => !engine.valScores(x.c.id))
        .sort((a, b) => b.s / b.n - a.s / a.n)[0];
      if (!pick) return;
      const mean = await engine.validate(pick.c, o.val);
      say(`trial ${trial}: ${pick.c.id} validation ${mean.toFixed(3)} (${engine.spent}/${engine.budget} rollouts)`);
    };
    for (trial = 1; trial <= o.numTrials; trial++) {
      const rng = new Rng(deriveSeed(o.seed, 'mipro-trial', trial));
      const totalN = [...stats.values()].reduce((s, x) => s + x.n, 0);
      const choice: Record<string, number> = {};
      for (const role of o.roles) {
        if (trial === 1) {
          choice[role] = 0;
          continue;
        }
        const ucb = options[role]!.map((_, i) => {
          const st = stats.get(`${role}\0${i}`);
          return st && st.n ? st.s / st.n + Math.sqrt((2 * Math.log(Math.max(2, totalN))) / st.n) : Infinity;
        });
        const top = Math.max(...ucb);
        choice[role] = rng.pick(
          ucb
            .map((u, i) => [u, i] as const)
            .filter(([u]) => u === top)
            .map(([, i]) => i),
        );
      }
      const prompts = Object.fromEntries(o.roles.map((r) => [r, options[r]![choice[r]!]!]));
      const c = engine.candidate(prompts, [seed.id], null, 'proposal', trial, choice).candidate;
      const rows = sampler.next();
      const runs = await engine.evaluate(c, rows, 'trial');
      const s = runs.reduce((a, r) => a + r.score, 0);
      for (const role of o.roles) {
        const k = `${role}\0${choice[role]}`;
        const st = stats.get(k) ?? { n: 0, s: 0 };
        stats.set(k, { n: st.n + rows.length, s: st.s + s });
      }
      const combo = byCombo.get(c.id) ?? { c, n: 0, s: 0 };
      byCombo.set(c.id, { c, n: combo.n + rows.length, s: combo.s + s });
      engine.o.log.event(`trial:${trial}`, 'trial', {
        trial,
        candidate: c.id,
        choice,
        rows,
        scores: runs.map((r) => r.score),
      });
      if (trial % o.fullEvalEvery === 0 || trial === o.numTrials) await validateBestUnvalidated();
    }
    return { stopReason: `ran ${o.numTrials} trials`, steps: o.numTrials };
  } catch (err) {
    if (err instanceof BudgetExhausted) return { stopReason: `budget: ${err.message}`, steps: trial };
    throw err;
  }
}
