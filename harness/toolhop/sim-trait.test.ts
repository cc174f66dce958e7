import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePolicySpec, TRAIT_KINDS } from '../sim/policy-spec.ts';
import { BUNDLED_SAMPLE, loadDatasetFile } from './dataset.ts';
import type { ToolhopRow } from './row.ts';
import { scoreAnswer } from './score.ts';
import { toolhopReply } from './sim-policy.ts';
import { carriesTrait, traitInstruction, traitValue, traitWins } from './sim-trait.ts';

const rows = loadDatasetFile(BUNDLED_SAMPLE).entries.flatMap((e) => (e.ok ? [e.row] : []));
const ctx = (i: number, agent = 'solver') => ({ instance: `toolhop:${i}`, agent, trial: 0 });

describe('sim:trait instructions', () => {
  it('an instruction written for a trait value is carried for that value and no other', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TRAIT_KINDS),
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.string(),
        (kind, a, b, around) => {
          const va = a.replace(/\s+/g, ' ').trim().toLowerCase();
          const vb = b.replace(/\s+/g, ' ').trim().toLowerCase();
          fc.pre(va !== '' && vb !== '' && !`"${va}"`.includes(`"${vb}"`) && !around.toLowerCase().includes(vb));
          const prompt = `${around}\n${traitInstruction(kind, va)}\n`;
          expect(carriesTrait(prompt, kind, va)).toBe(true);
          expect(carriesTrait(prompt.toUpperCase().replace(/ /g, '  '), kind, va)).toBe(true);
          expect(carriesTrait(prompt, kind, vb)).toBe(false);
        },
      ),
    );
  });

  it('the answer type and the previous answer type are different traits', () => {
    const prompt = traitInstruction('previous_answer_type', 'date');
    expect(carriesTrait(prompt, 'previous_answer_type', 'date')).toBe(true);
    expect(carriesTrait(prompt, 'answer_type', 'date')).toBe(false);
    expect(carriesTrait(traitInstruction('answer_type', 'date'), 'previous_answer_type', 'date')).toBe(false);
  });

  it("a row's values: normalised fields, and the whole question", () => {
    const row = {
      question: '  What  is the\nbirth year of the author of a very long book title here?',
      answer_type: 'Number',
      previous_answer_type: 'person',
      domain: 'Film History',
    };
    expect(traitValue(row, 'answer_type')).toBe('number');
    expect(traitValue(row, 'domain')).toBe('film history');
    expect(traitValue(row, 'question')).toBe('what is the birth year of the author of a very long book title here?');
    expect(traitInstruction('question', traitValue(row, 'question'), { answer: '1923' })).toContain('answer "1923"');
  });
});

describe('sim:trait solves a row on its instructions', () => {
  const spec = parsePolicySpec('sim:trait?lo=0.2&hi=0.9&seed=4');
  const row = rows[0]!;
  const withIt = traitInstruction('answer_type', traitValue(row, 'answer_type'));
  const other = traitInstruction('answer_type', traitValue(row, 'answer_type') === 'date' ? 'number' : 'date');

  it('adding the instruction never loses a row the prompt without it solved', () => {
    for (let i = 0; i < 2000; i++) {
      const without = traitWins(spec, row, `Seed words.\n${other}`, ctx(i));
      if (without) expect(traitWins(spec, row, `Seed words.\n${withIt}`, ctx(i))).toBe(true);
    }
  });

  it('wins at rate lo without the instruction and hi with it (binomial bounds over 4000 instances)', () => {
    const n = 4000;
    const rate = (prompt: string) =>
      Array.from({ length: n }, (_, i) => traitWins(spec, row, prompt, ctx(i))).filter(Boolean).length / n;
    // 5 standard errors: a fixture whose rates drift from its options fails; noise does not.
    const tol = (p: number) => 5 * Math.sqrt((p * (1 - p)) / n);
    expect(Math.abs(rate(`Seed.\n${other}`) - 0.2)).toBeLessThan(tol(0.2));
    expect(Math.abs(rate(`Seed.\n${withIt}`) - 0.9)).toBeLessThan(tol(0.9));
  });

  it('a winning request runs the tool chain like the oracle; a losing one answers a wrong value at once', () => {
    let sawWin = false;
    let sawLoss = false;
    for (let i = 0; i < 40; i++) {
      const c = ctx(i);
      for (const prompt of [withIt, other]) {
        const reply = toolhopReply(
          spec,
          row as ToolhopRow,
          [
            { role: 'system', content: prompt },
            { role: 'user', content: row.question },
          ],
          [{ type: 'function', function: { name: Object.values(row.tools)[0]!.name, parameters: {} } }],
          c,
        );
        if (traitWins(spec, row, prompt, c)) {
          sawWin = true;
          expect(reply.tool_calls?.length).toBe(1);
        } else {
          sawLoss = true;
          expect(reply.tool_calls).toBeUndefined();
          expect(scoreAnswer(row.answer, reply.content ?? '', '').correct).toBe(false);
        }
      }
    }
    expect(sawWin && sawLoss).toBe(true);
  });
});
