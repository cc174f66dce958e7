import { describe, expect, it } from 'vitest';
import { simEvalJudgeReply, simEvalVerdict } from './eval-judge.ts';
import { parsePolicySpec } from './policy-spec.ts';

// Prompts written out by hand (the sections the judge's prompt protocol names), not by the scorer's prompt builder.
const prompt = (candidate: string, reference?: string) =>
  `<criteria>\nagree\n</criteria>\n\n<question>\nq\n</question>\n\n${reference === undefined ? '' : `<reference_answer>\n${reference}\n</reference_answer>\n\n`}<candidate_answer>\n${candidate}\n</candidate_answer>`;

describe("sim:judge's rule for eval judges", () => {
  it.each([
    ['The capital is Paris.', 'paris', true],
    ['It costs 1,000 dollars', '1000', true],
    ['42.0', '42', true],
    ['New York City', 'new york', true],
    ['Lyon', 'Paris', false],
    ['York, New', 'new york', false],
    ['10000', '1000', false],
    ['', 'x', false],
  ])('candidate %j against reference %j: pass=%s', (candidate, reference, pass) => {
    expect(simEvalVerdict(prompt(candidate, reference))?.pass).toBe(pass);
  });

  it('without a reference section it passes any answer that says something; a text with no candidate is no prompt', () => {
    expect(simEvalVerdict(prompt('anything'))?.pass).toBe(true);
    expect(simEvalVerdict(prompt('  ... '))?.pass).toBe(false);
    expect(simEvalVerdict('What is 2 + 2?')).toBeUndefined();
  });

  it('disagree=1 flips every verdict, invalid=1 answers with no JSON at all', () => {
    const messages = [{ role: 'user', content: prompt('Paris', 'Paris') }];
    const verdictOf = (model: string) => {
      const reply = simEvalJudgeReply(parsePolicySpec(model), messages)!;
      const m = /\{[\s\S]*\}/.exec(reply);
      return m ? (JSON.parse(m[0]) as { verdict: string }).verdict : null;
    };
    expect(verdictOf('sim:judge')).toBe('pass');
    expect(verdictOf('sim:oracle')).toBe('pass');
    expect(verdictOf('sim:judge?disagree=1')).toBe('fail');
    expect(verdictOf('sim:judge?invalid=1')).toBeNull();
  });
});
