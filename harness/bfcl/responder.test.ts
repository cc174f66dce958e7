// The simulator on BFCL cases: what each policy answers in FC and prompt mode, and that BFCL's checker gives the
// planted outcome (the oracle passes; each fault fails the way it is meant to).
import { describe, expect, it } from 'vitest';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import { loadCategory, type BfclCase } from './data.ts';
import { behaviourFor, createBfclResponder, simulatedResult, type Behaviour } from './responder.ts';
import { checkSingleTurn } from './score.ts';
import { FIXTURE_DATA } from './testkit.ts';

const cases = new Map<string, BfclCase>(
  (['simple_python', 'parallel', 'irrelevance', 'live_relevance'] as const).flatMap((c) =>
    loadCategory(FIXTURE_DATA, c).map((x) => [x.id, x] as [string, BfclCase]),
  ),
);
const ctx = (id: string) => ({ id: `bfcl:${id}`, instance: `bfcl:${id}`, agent: 'a', trial: 0 });
const ask = (mode: 'fc' | 'prompt', model: string, id: string) =>
  createBfclResponder({ mode, underscores: true, lookup: (k) => cases.get(k) }).chat!(
    parsePolicySpec(model),
    { model, messages: [{ role: 'user', content: 'q' }] },
    ctx(id),
  ) as {
    content: string | null;
    tool_calls?: Array<{ function: { name: string; arguments: string } }>;
  };

describe('BFCL responder', () => {
  it("oracle: FC tool calls with underscored names and lossless arguments; prompt mode in BFCL's [func(...)] text", () => {
    expect(
      ask('fc', 'sim:oracle', 'simple_python_1').tool_calls?.map((t) => [t.function.name, t.function.arguments]),
    ).toEqual([['circle_area', '{"radius": 5.0}']]);
    expect(ask('fc', 'sim:oracle', 'simple_python_0').tool_calls?.[0]?.function.name).toBe('weather_get');
    expect(ask('prompt', 'sim:oracle', 'simple_python_0').content).toBe("[weather.get(city='Paris')]");
    expect(ask('prompt', 'sim:oracle', 'parallel_0').content).toBe(
      "[get_price(company='Acme', date='2024-01-01'), get_price(company='Zeta', date='2024-01-01')]",
    );
    expect(ask('fc', 'sim:oracle', 'irrelevance_0')).toMatchObject({ content: expect.any(String) });
    expect(ask('fc', 'sim:oracle', 'irrelevance_0').tool_calls).toBeUndefined();
  });

  it('each behaviour gets the BFCL outcome it plants', () => {
    const outcome = (id: string, b: Behaviour, style: 'fc' | 'pythonic') => {
      const c = cases.get(id)!;
      const v = checkSingleTurn(c, simulatedResult(c, style, b, { underscores: style === 'fc' }), {
        format: style,
        underscoreToDot: style === 'fc',
      });
      return v.valid ? 'valid' : v.error_type;
    };
    for (const style of ['fc', 'pythonic'] as const) {
      expect(outcome('simple_python_0', 'oracle', style)).toBe('valid');
      expect(outcome('live_relevance_0-0-0', 'oracle', style)).toBe('valid');
      expect(outcome('irrelevance_0', 'oracle', style)).toBe('valid');
      expect(outcome('simple_python_0', 'decision_failure', style)).toBe('value_error:string');
      expect(outcome('irrelevance_0', 'decision_failure', style)).toBe('irrelevance_error:decoder_success');
      expect(outcome('simple_python_0', 'format_failure', style)).toBe('ast_decoder:decoder_failed');
      expect(outcome('simple_python_0', 'parser_gap', style)).toBe('ast_decoder:decoder_failed');
    }
  });

  it('policies map to behaviours: wrong and fault causes are fixed, coin is seeded per case and trial', () => {
    expect(behaviourFor(parsePolicySpec('sim:wrong'), 'x', 0)).toBe('decision_failure');
    expect(behaviourFor(parsePolicySpec('sim:fault?cause=parser_gap'), 'x', 0)).toBe('parser_gap');
    expect(behaviourFor(parsePolicySpec('sim:fault?cause=template_bug'), 'x', 0)).toBe('oracle');
    const coin = parsePolicySpec('sim:coin?p=0.5&seed=1');
    const draws = Array.from({ length: 200 }, (_, i) => behaviourFor(coin, `case_${i}`, 0));
    expect(draws.filter((d) => d === 'oracle').length).toBeGreaterThan(60);
    expect(draws.filter((d) => d === 'oracle').length).toBeLessThan(140);
    expect(Array.from({ length: 200 }, (_, i) => behaviourFor(coin, `case_${i}`, 0))).toEqual(draws);
    expect(() => ask('fc', 'sim:oracle', 'no_such_case')).toThrow(/no BFCL case 'no_such_case'/);
  });
});
