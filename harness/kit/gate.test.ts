import { describe, expect, it } from 'vitest';
import { evaluateGate, GateSyntaxError, parseGate } from './gate.ts';

const metrics = {
  accuracy: { value: 0.62, lo: 0.55, hi: 0.69, n: 182 },
  'tsr.P2': { value: 0.25, lo: 0.1, hi: 0.4, n: 40 },
  args_correct: { value: NaN, lo: NaN, hi: NaN, n: 0 },
};
const run = { instances: 182, harnessErrors: 0 };

describe('gates', () => {
  it('parses clauses with fields and operators', () => {
    expect(parseGate('accuracy.lo>=0.40, tsr.P2 > 0.3,accuracy.n==182')).toEqual([
      { text: 'accuracy.lo>=0.40', metric: 'accuracy', field: 'lo', op: '>=', threshold: 0.4 },
      { text: 'tsr.P2 > 0.3', metric: 'tsr.P2', field: 'value', op: '>', threshold: 0.3 },
      { text: 'accuracy.n==182', metric: 'accuracy', field: 'n', op: '==', threshold: 182 },
    ]);
    expect(() => parseGate('accuracy => 0.4')).toThrow(GateSyntaxError);
    expect(() => parseGate(' , ')).toThrow(/empty/);
  });

  it('passes only when every clause holds, with the actual values reported', () => {
    const ok = evaluateGate('accuracy>=0.6,accuracy.lo>=0.55', metrics, run);
    expect(ok.passed).toBe(true);
    expect(ok.checks.map((c) => c.actual)).toEqual([0.62, 0.55]);
    const bad = evaluateGate('accuracy>=0.6,tsr.P2>=0.3', metrics, run);
    expect(bad.passed).toBe(false);
    expect(bad.reasons).toEqual(['tsr.P2>=0.3: actual 0.25']);
  });

  it('fails an empty run, harness errors, unknown metrics and undefined values', () => {
    expect(evaluateGate('accuracy>=0', metrics, { instances: 0, harnessErrors: 0 }).reasons).toContain(
      'empty run: no instances were evaluated',
    );
    expect(evaluateGate('accuracy>=0', metrics, { instances: 5, harnessErrors: 2 }).passed).toBe(false);
    expect(evaluateGate('tsr>=0', metrics, run).reasons[0]).toMatch(/no metric 'tsr'/);
    expect(evaluateGate('args_correct>=0', metrics, run).reasons[0]).toMatch(/undefined \(n=0\)/);
  });
});
