import { describe, expect, it } from 'vitest';
import { parsePolicySpec } from './policy-spec.ts';

describe('simulator model names', () => {
  it('parses policies and options', () => {
    expect(parsePolicySpec('sim:coin?p=0.6&seed=3')).toMatchObject({ name: 'coin', p: 0.6, seed: 3, latencyMs: 0 });
    expect(parsePolicySpec('sim:oracle?latency_ms=200')).toMatchObject({ name: 'oracle', latencyMs: 200 });
    expect(parsePolicySpec('sim:flaky?rate=0.2')).toMatchObject({ name: 'flaky', rate: 0.2 });
    expect(parsePolicySpec('sim:fault?cause=parser_gap')).toMatchObject({ name: 'fault', cause: 'parser_gap' });
    expect(parsePolicySpec('sim:trait').trait).toEqual({ kind: 'answer_type', lo: 0.2, hi: 0.9, maxNew: 0 });
    expect(parsePolicySpec('sim:trait?trait=domain&lo=0.1&hi=0.8').trait).toMatchObject({
      kind: 'domain',
      lo: 0.1,
      hi: 0.8,
    });
    expect(parsePolicySpec('sim:reflect?trait=question&max=3').trait).toMatchObject({ kind: 'question', maxNew: 3 });
    expect(parsePolicySpec('sim:oracle').trait).toBeUndefined();
    expect(parsePolicySpec('sim:judge').judge).toEqual({ disagree: 0, invalid: 0 });
    expect(parsePolicySpec('sim:judge?disagree=0.25&invalid=0.1&seed=4')).toMatchObject({
      seed: 4,
      judge: { disagree: 0.25, invalid: 0.1 },
    });
    expect(() => parsePolicySpec('sim:judge?disagree=2')).toThrow(/sim:judge: option 'disagree'/);
  });
  it('checks the trait fixture options', () => {
    expect(() => parsePolicySpec('sim:trait?trait=colour')).toThrow(/option 'trait'/);
    expect(() => parsePolicySpec('sim:trait?lo=0.9&hi=0.5')).toThrow(/option 'lo': lo must not exceed hi/);
    expect(() => parsePolicySpec('sim:reflect?max=0')).toThrow(/option 'max'/);
    expect(() => parsePolicySpec('sim:reflect?lo=0.1')).toThrow(/option 'lo'/);
  });
  it('rejects unknown policies, unknown options and bad values with a message naming them', () => {
    expect(() => parsePolicySpec('gpt-4o')).toThrow(/not a simulator model/);
    expect(() => parsePolicySpec('sim:genius')).toThrow(/unknown simulator policy 'genius'/);
    expect(() => parsePolicySpec('sim:coin?q=1')).toThrow(/option 'q'/);
    expect(() => parsePolicySpec('sim:coin?p=1.5')).toThrow(/option 'p'/);
    expect(() => parsePolicySpec('sim:coin?tools=some')).toThrow(/option 'tools'/);
    expect(parsePolicySpec('sim:coin?tools=none')).toMatchObject({ coinTools: 'none' });
    expect(() => parsePolicySpec('sim:fault?cause=bad')).toThrow(/option 'cause'/);
    expect(() => parsePolicySpec('sim:fault')).toThrow(/option 'cause'/);
  });
});
