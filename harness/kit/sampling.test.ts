import { describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import { toolhopSuite } from '../toolhop/suite.ts';
import { runFingerprint } from './fingerprint.ts';
import { generationHeader, samplingFor, samplingPlan } from './sampling.ts';

const run = { temperature: 0.4, maxTokens: undefined, seed: 7 };

describe('samplingFor: the seed rule and the plan', () => {
  it('trial t sends seed + t; trial 0 the run seed', () => {
    const plan = samplingPlan(run);
    expect([0, 1, 5].map((t) => samplingFor(plan, t).seed)).toEqual([7, 8, 12]);
    expect(samplingFor(plan, 0)).toEqual({ temperature: 0.4, seed: 7 });
  });

  it("a phase sends its own values with the trial's seed; an undeclared phase is an error", () => {
    const plan = samplingPlan(run, {
      base: { temperature: 0.2, top_p: 0.9, max_tokens: 512, extra_body: { repetition_penalty: 1.05 } },
      phases: { final: { temperature: 0, max_tokens: 64 } },
    });
    expect(samplingFor(plan, 1)).toEqual({
      temperature: 0.2,
      topP: 0.9,
      maxTokens: 512,
      seed: 8,
      extraBody: { repetition_penalty: 1.05 },
    });
    expect(samplingFor(plan, 1, 'final')).toEqual({ temperature: 0, maxTokens: 64, seed: 8 });
    expect(() => samplingFor(plan, 0, 'judge')).toThrow(/no sampling phase 'judge'/);
  });

  it("a value left out takes the run's --max-tokens, as the model client fills it in", () => {
    const plan = samplingPlan(
      { ...run, maxTokens: 300 },
      { base: { temperature: 0 }, phases: { f: { temperature: 0 } } },
    );
    expect(samplingFor(plan, 0).maxTokens).toBe(300);
    expect(samplingFor(plan, 0, 'f').maxTokens).toBe(300);
  });

  it('an unseeded plan sends no seed and records none', () => {
    const plan = samplingPlan(run, { base: { temperature: 0, top_p: 1 }, seeded: false });
    expect(samplingFor(plan, 3)).toEqual({ temperature: 0, topP: 1 });
    expect(generationHeader(plan)).toMatchObject({ seed: null, seed_rule: null });
  });
});

describe('generationHeader', () => {
  it('records the base values, the seed, the rule and the phases; facts never override them', () => {
    const plan = samplingPlan(run, {
      base: { temperature: 0.2 },
      phases: { final: { temperature: 0, max_tokens: 64 } },
    });
    expect(generationHeader(plan, { preset: 'reference', temperature: 99 })).toEqual({
      temperature: 0.2,
      top_p: null,
      max_tokens: null,
      seed: 7,
      seed_rule: 'seed + trial',
      phases: { final: { temperature: 0, top_p: null, max_tokens: 64 } },
      preset: 'reference',
    });
  });
});

describe('the fingerprint follows the sampling plan', () => {
  const fp = (env: Record<string, string>) => {
    const r = readConfig({ TOOLGAUGE_SEED: '7', ...env });
    return runFingerprint(toolhopSuite, r, toolhopSuite.settings(env, r), null);
  };
  it('a different turn or final-call value, or seed, is a different run', () => {
    const base = fp({});
    expect(base['generation.seed_rule']).toBe('seed + trial');
    for (const env of [{ TOOLHOP_TOP_P: '0.5' }, { TOOLHOP_FINAL_MAX_TOKENS: '32' }, { TOOLGAUGE_SEED: '8' }] as Array<
      Record<string, string>
    >)
      expect(fp(env), JSON.stringify(env)).not.toEqual(base);
    expect(fp({})).toEqual(base);
  });
});
