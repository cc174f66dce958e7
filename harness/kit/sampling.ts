import type { RunConfig } from '../core/config.ts';
import type { Sampling } from '../model/types.ts';
import type { SuiteOf } from './types.ts';

/**
 * What a run's requests are asked with, derived in one place: a suite declares its base values (and, where its
 * source has them, phases with values of their own, such as ToolHop's final-answer call), the kit makes the run's
 * plan of it, hands each instance the values of its trial (`RunContext.sampling`), and writes the header's
 * `generation` block from the same plan, so the header says what was sent.
 */

/**
 * The one seed rule: trial t of a run at seed s sends seed s + t. Trials are then distinct samples, and trial 0 sends
 * the run's seed (a one-trial run sends what the reference runners send).
 */
export const SEED_RULE = 'seed + trial';

/** One kind of request's values, named as the request body names them; a value left out is not sent. */
export interface SamplingValues {
  temperature: number;
  top_p?: number;
  max_tokens?: number;
  /** Server-specific fields (a reference preset's `repetition_penalty`, `chat_template_kwargs`). */
  extra_body?: Record<string, unknown>;
}

/** What a suite declares it sends. */
export interface SamplingNeeds {
  /** The values of every request that names no phase. */
  base: SamplingValues;
  /** Requests of a kind with values of their own (ToolHop: `final`, the extra final-answer call). */
  phases?: Record<string, SamplingValues>;
  /** false: the endpoint takes no seed (Anthropic's Messages API), none is sent or recorded. Default true. */
  seeded?: boolean;
}

/** A run's sampling: the seed rule, the run's seed, and the values of each kind of request. */
export interface SamplingPlan {
  rule: typeof SEED_RULE;
  /** The run's seed (trial 0's); null when no seed is sent. */
  seed: number | null;
  base: SamplingValues;
  phases: Record<string, SamplingValues>;
}

type RunSampling = Pick<RunConfig, 'temperature' | 'maxTokens' | 'seed'>;

/** The run's own values (`--temperature`, `--max-tokens`): what a suite without a source preset sends. */
export function runSampling(run: RunSampling): SamplingValues {
  return { temperature: run.temperature, ...(run.maxTokens !== undefined ? { max_tokens: run.maxTokens } : {}) };
}

/**
 * The run's plan from the suite's needs (default: the run's own values). A kind of request that sets no max_tokens
 * gets the run's `--max-tokens`, as the run's model client fills it in.
 */
export function samplingPlan(run: RunSampling, needs: SamplingNeeds = { base: runSampling(run) }): SamplingPlan {
  const filled = (v: SamplingValues): SamplingValues =>
    v.max_tokens === undefined && run.maxTokens !== undefined ? { ...v, max_tokens: run.maxTokens } : { ...v };
  return {
    rule: SEED_RULE,
    seed: needs.seeded === false ? null : run.seed,
    base: filled(needs.base),
    phases: Object.fromEntries(Object.entries(needs.phases ?? {}).map(([k, v]) => [k, filled(v)])),
  };
}

/** The seed trial `trial` sends (the rule applied), or undefined when none is sent. */
export function seedFor(plan: SamplingPlan, trial: number): number | undefined {
  return plan.seed === null ? undefined : plan.seed + trial;
}

/** A request's sampling fields (the model client's names) for a trial, of the base or a named phase. */
export function samplingFor(plan: SamplingPlan, trial: number, phase?: string): Sampling {
  const v = phase === undefined ? plan.base : plan.phases[phase];
  if (!v) throw new Error(`no sampling phase '${phase}' (the suite declares: ${Object.keys(plan.phases).join(', ')})`);
  const seed = seedFor(plan, trial);
  return {
    temperature: v.temperature,
    ...(v.top_p !== undefined ? { topP: v.top_p } : {}),
    ...(v.max_tokens !== undefined ? { maxTokens: v.max_tokens } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(v.extra_body ? { extraBody: v.extra_body } : {}),
  };
}

/** A trial's sampling, by phase: what `RunContext.sampling` is. */
export function trialSampling(plan: SamplingPlan, trial: number): (phase?: string) => Sampling {
  return (phase) => samplingFor(plan, trial, phase);
}

/** A suite's values written with the model client's names (a preset's `Sampling`), as the plan names them. */
export function valuesOf(x: Omit<Sampling, 'seed'>, temperature: number): SamplingValues {
  return {
    temperature: x.temperature ?? temperature,
    ...(x.topP !== undefined ? { top_p: x.topP } : {}),
    ...(x.maxTokens !== undefined ? { max_tokens: x.maxTokens } : {}),
    ...(x.extraBody ? { extra_body: x.extraBody } : {}),
  };
}

function valuesJson(v: SamplingValues): Record<string, unknown> {
  return {
    temperature: v.temperature,
    top_p: v.top_p ?? null,
    max_tokens: v.max_tokens ?? null,
    ...(v.extra_body ? { extra_body: v.extra_body } : {}),
  };
}

/**
 * The header's `generation` block: the base values, the run's seed and the rule that gives each trial's seed, each
 * phase's values, then the suite's other facts (a preset's name, the probe's decode axis), which never override them.
 */
export function generationHeader(plan: SamplingPlan, facts: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...valuesJson(plan.base),
    seed: plan.seed,
    seed_rule: plan.seed === null ? null : plan.rule,
    ...(Object.keys(plan.phases).length
      ? { phases: Object.fromEntries(Object.entries(plan.phases).map(([k, v]) => [k, valuesJson(v)])) }
      : {}),
  };
  for (const [k, v] of Object.entries(facts)) if (!(k in out)) out[k] = v;
  return out;
}

/** A suite's plan for a run. */
export function suiteSamplingPlan<S>(def: SuiteOf<S>, run: RunConfig, settings: S): SamplingPlan {
  return samplingPlan(run, def.sampling?.(run, settings));
}

/** A suite's sampling for one trial of a run, for callers that run a suite's instances themselves (the optimizer). */
export function suiteTrialSampling<S>(
  def: SuiteOf<S>,
  run: RunConfig,
  settings: S,
  trial: number,
): (phase?: string) => Sampling {
  return trialSampling(suiteSamplingPlan(def, run, settings), trial);
}

/** A suite's `generation` block for a run (the header and the fingerprint). */
export function suiteGeneration<S>(def: SuiteOf<S>, run: RunConfig, settings: S): Record<string, unknown> {
  return generationHeader(suiteSamplingPlan(def, run, settings), def.generationFacts?.(run, settings));
}
