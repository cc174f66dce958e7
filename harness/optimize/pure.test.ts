import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import type { ToolhopRow } from '../toolhop/row.ts';
import { carriesTrait, traitValue } from '../toolhop/sim-trait.ts';
import { ancestorsOf, commonAncestor, mergePrompts } from './merge.ts';
import { paretoFront, selectFromFront } from './pareto.ts';
import {
  blindRewritePrompt,
  parseInstruction,
  proposalPrompt,
  reflectionPrompt,
  type ReflectionContext,
} from './reflection.ts';
import { currentOf, examplesOf, reflectAnswer } from './sim-reflect.ts';
import { drawSplits, toolhopEvalIds, type SplitRow } from './splits.ts';
import type { Rollout } from './types.ts';

describe('splits', () => {
  const rowsArb = fc
    .array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.constantFrom('number', 'string', 'date', 'letter')), {
      minLength: 10,
      maxLength: 150,
    })
    .map((xs) =>
      [...new Map(xs.map(([id, s]) => [String(id), s])).entries()].map(([id, stratum]) => ({ id, stratum })),
    );

  it('train and val are disjoint, of the sizes asked, outside the eval ids, and the rest is held out', () => {
    fc.assert(
      fc.property(
        rowsArb,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 99 }),
        (rows, tr, va, seed) => {
          const outside = rows.filter((r) => Number(r.id) > 99);
          fc.pre(outside.length >= tr + va);
          const s = drawSplits(rows, {
            trainSize: tr,
            valSize: va,
            seed,
            allowEvalIds: false,
            evalIds: toolhopEvalIds(),
          });
          expect(s.train).toHaveLength(tr);
          expect(s.val).toHaveLength(va);
          expect(s.train.filter((id) => s.val.includes(id))).toEqual([]);
          for (const id of [...s.train, ...s.val, ...s.heldout]) expect(Number(id)).toBeGreaterThan(99);
          expect(new Set([...s.train, ...s.val, ...s.heldout])).toEqual(new Set(outside.map((r) => r.id)));
          expect([...s.excludedEvalIds].sort()).toEqual(
            rows
              .filter((r) => Number(r.id) <= 99)
              .map((r) => r.id)
              .sort(),
          );
          expect(s.evalOverlap).toEqual([]);
          // Same seed, same splits.
          expect(
            drawSplits(rows, { trainSize: tr, valSize: va, seed, allowEvalIds: false, evalIds: toolhopEvalIds() }),
          ).toEqual(s);
        },
      ),
    );
  });

  it('each stratum gets its share of a split, to within one row', () => {
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 99 }), (rows, tr, seed) => {
        fc.pre(rows.length >= tr + 1);
        const s = drawSplits(rows, { trainSize: tr, valSize: 1, seed, allowEvalIds: true, evalIds: toolhopEvalIds() });
        const stratum = new Map(rows.map((r) => [r.id, r.stratum]));
        for (const k of new Set(rows.map((r) => r.stratum))) {
          const share = (rows.filter((r) => r.stratum === k).length * tr) / rows.length;
          const got = s.train.filter((id) => stratum.get(id) === k).length;
          expect(Math.abs(got - share)).toBeLessThan(1 + 1e-9);
        }
      }),
    );
  });

  it('refuses splits that need eval ids unless allowed, and records the overlap when allowed', () => {
    const rows: SplitRow[] = Array.from({ length: 30 }, (_, i) => ({ id: String(90 + i), stratum: 'x' }));
    expect(() =>
      drawSplits(rows, { trainSize: 15, valSize: 10, seed: 0, allowEvalIds: false, evalIds: toolhopEvalIds() }),
    ).toThrow(
      /needs 25 rows, but only 20 valid rows are outside the eval ids 0–99 \(10 eval rows left out; --allow-eval-ids/,
    );
    const s = drawSplits(rows, { trainSize: 15, valSize: 10, seed: 0, allowEvalIds: true, evalIds: toolhopEvalIds() });
    expect(s.evalOverlap.length).toBeGreaterThan(0);
    expect(s.evalOverlap.every((id) => Number(id) <= 99)).toBe(true);
  });
});

describe('Pareto selection', () => {
  const matrix = fc
    .tuple(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 9 }))
    .chain(([nc, ni]) =>
      fc.array(fc.array(fc.constantFrom(0, 1), { minLength: ni, maxLength: ni }), { minLength: nc, maxLength: nc }),
    );

  it('every instance keeps a best candidate, and a candidate another beats or ties everywhere (beating once) is dropped', () => {
    fc.assert(
      fc.property(matrix, (m) => {
        const f = paretoFront(m);
        const ni = m[0]!.length;
        for (let i = 0; i < ni; i++) {
          const best = Math.max(...m.map((r) => r[i]!));
          expect(f.survivors.some((c) => m[c]![i] === best)).toBe(true);
        }
        for (const c of f.survivors) {
          const dominated = m.some(
            (o, j) => j !== c && o.every((x, i) => x >= m[c]![i]!) && o.some((x, i) => x > m[c]![i]!),
          );
          expect(dominated).toBe(false);
        }
      }),
    );
  });

  it('draws only survivors, about in proportion to the instances each is best on', () => {
    // c0 best on instance 0 only, c1 on instances 1–3, c2 dominated by c1.
    const m = [
      [1, 0, 0, 0],
      [0, 1, 1, 1],
      [0, 1, 0, 0],
    ];
    const f = paretoFront(m);
    expect(f.survivors).toEqual([0, 1]);
    const rng = new Rng(3);
    const n = 4000;
    let ones = 0;
    for (let i = 0; i < n; i++) {
      const c = selectFromFront(f, rng);
      expect([0, 1]).toContain(c);
      if (c === 1) ones++;
    }
    expect(Math.abs(ones / n - 0.75)).toBeLessThan(5 * Math.sqrt((0.75 * 0.25) / n));
  });

  it('of two candidates with the same scores the older survives', () => {
    expect(
      paretoFront([
        [1, 0],
        [1, 0],
      ]).survivors,
    ).toEqual([0]);
  });
});

describe('merge', () => {
  it('takes, role by role, the version that moved away from the ancestor', () => {
    const anc = { a: 'A0', b: 'B0', c: 'C0' };
    expect(mergePrompts(anc, { a: 'A1', b: 'B0', c: 'C0' }, { a: 'A0', b: 'B2', c: 'C0' }, 'a')).toEqual({
      a: 'A1',
      b: 'B2',
      c: 'C0',
    });
    expect(mergePrompts(anc, { a: 'A1', b: 'B0', c: 'C0' }, { a: 'A2', b: 'B2', c: 'C0' }, 'a')).toEqual({
      a: 'A1',
      b: 'B2',
      c: 'C0',
    });
    expect(mergePrompts(anc, { a: 'A1', b: 'B0', c: 'C0' }, { a: 'A2', b: 'B2', c: 'C0' }, 'b')).toBeNull();
    expect(mergePrompts(anc, { a: 'A1', b: 'B0', c: 'C0' }, anc, 'a')).toBeNull();
  });

  it('finds the nearest common ancestor, and none when one descends from the other', () => {
    const parents: Record<string, string[]> = {
      c0: [],
      c1: ['c0'],
      c2: ['c1'],
      c3: ['c1'],
      c4: ['c0'],
      c5: ['c3', 'c4'],
    };
    const of = (id: string) => parents[id]!;
    expect(ancestorsOf('c5', of)).toEqual(['c3', 'c4', 'c1', 'c0']);
    expect(commonAncestor('c2', 'c3', of)).toBe('c1');
    expect(commonAncestor('c2', 'c4', of)).toBe('c0');
    expect(commonAncestor('c1', 'c2', of)).toBeNull();
  });
});

const ctx: ReflectionContext = {
  topology: 'centralized',
  role: 'manager',
  roles: ['manager', 'planner_worker'],
  answerer: 'manager',
  current: 'Be a good manager.\n- keep it short',
};

function rollout(question: string, correct: boolean): Rollout {
  return {
    candidate: 'c0',
    row: question.slice(0, 4),
    score: correct ? 1 : 0,
    error: null,
    tokens: { prompt: 1, completion: 1, total: 2 },
    feedback: {
      question,
      gold: '42',
      predicted: correct ? '42' : '7',
      correct,
      rule: correct ? 'literal' : null,
      error: null,
      toolCalls: 3,
      toolErrors: correct ? [] : ['f: an error occurred'],
      answeredBy: 'manager',
      runs: [
        { role: 'manager', agent: 'manager', final: '<answer>7</answer>', toolErrors: 0, error: null },
        { role: 'planner_worker', agent: 'planner_worker', final: 'plan', toolErrors: 1, error: null },
      ],
      vote: null,
      forcedFinal: false,
    },
  };
}

describe('reflection prompts and answers', () => {
  it('the prompt carries the current instruction, every example with its verdict, gold, prediction, rule and the answering role', () => {
    const p = reflectionPrompt(ctx, [
      rollout('What is  the\nfirst thing?', false),
      rollout('What is the second?', true),
    ]);
    expect(currentOf(p)).toBe(ctx.current);
    expect(examplesOf(p)).toEqual([
      { n: 1, wrong: true, question: 'What is the first thing?' },
      { n: 2, wrong: false, question: 'What is the second?' },
    ]);
    expect(p).toContain('Gold answer: 42');
    expect(p).toContain('Predicted answer: 7');
    expect(p).toContain("rule 1-2 'literal'");
    expect(p).toContain('The scored answer came from role "manager"');
    expect(p).toContain('f: an error occurred');
    expect(p).toContain('Other roles with problems: planner_worker (1 tool errors)');
  });

  it('the blind rewrite has no examples; a proposal carries its tip', () => {
    expect(examplesOf(blindRewritePrompt(ctx))).toEqual([]);
    expect(currentOf(blindRewritePrompt(ctx))).toBe(ctx.current);
    expect(proposalPrompt(ctx, [rollout('Q?', false)], 'Be concise.')).toContain('Tip: Be concise.');
  });

  it('reads the new instruction from tags, after a think section, from a fence, or the whole answer', () => {
    expect(
      parseInstruction(
        '<think>draft <instruction>no</instruction></think>Here:\n<instruction>\n New rules.\n</instruction>',
      ),
    ).toBe('New rules.');
    expect(parseInstruction('<instruction>a</instruction> then <instruction>b</instruction>')).toBe('b');
    expect(parseInstruction('text\n```\nFenced rules\n```\n')).toBe('Fenced rules');
    expect(parseInstruction('<instruction>cut off by max tokens')).toBe('cut off by max tokens');
    expect(parseInstruction('  Just the rules.  ')).toBe('Just the rules.');
    expect(parseInstruction('<instruction> </instruction>')).toBeNull();
  });
});

describe('sim:reflect', () => {
  const rows = [
    {
      question: 'What is the first thing?',
      answer: '1923',
      answer_type: 'number',
      previous_answer_type: 'person',
      domain: 'History',
    },
    {
      question: 'What is the second?',
      answer: 'x',
      answer_type: 'letter',
      previous_answer_type: 'date',
      domain: 'Film',
    },
    {
      question: 'What is the third?',
      answer: '3',
      answer_type: 'number',
      previous_answer_type: 'year',
      domain: 'Film',
    },
  ] as unknown as ToolhopRow[];
  const lookup = (q: string) => rows.find((r) => r.question.toLowerCase() === q.toLowerCase());
  const ask = (model: string, examples: Rollout[], current = 'Seed.') =>
    parseInstruction(reflectAnswer(parsePolicySpec(model), reflectionPrompt({ ...ctx, current }, examples), lookup))!;

  it("adds instructions for the wrong rows' traits, most frequent first, at most max, and keeps the current text", () => {
    const out = ask('sim:reflect?max=1', [
      rollout('What is the second?', false),
      rollout('What is the first thing?', false),
      rollout('What is the third?', false),
    ]);
    expect(out.startsWith('Seed.\n')).toBe(true);
    expect(carriesTrait(out, 'answer_type', 'number')).toBe(true);
    expect(carriesTrait(out, 'answer_type', 'letter')).toBe(false);
    const two = ask('sim:reflect?max=2', [
      rollout('What is the second?', false),
      rollout('What is the first thing?', false),
    ]);
    expect(carriesTrait(two, 'answer_type', 'number') && carriesTrait(two, 'answer_type', 'letter')).toBe(true);
  });

  it('learns nothing from correct rows, unknown rows or traits already covered: it only rewords', () => {
    const out = ask('sim:reflect', [rollout('What is the first thing?', true), rollout('Unknown question?', false)]);
    for (const v of ['number', 'letter']) expect(carriesTrait(out, 'answer_type', v)).toBe(false);
    expect(out).not.toBe('Seed.');
    const covered = ask(
      'sim:reflect',
      [rollout('What is the first thing?', false)],
      `Seed.\n- When the answer type is "number": ok`,
    );
    expect(covered.split('\n').filter((l) => l.includes('"number"'))).toHaveLength(1);
  });

  it('writes memorised answers for the row-unique trait', () => {
    const out = ask('sim:reflect?trait=question', [rollout('What is the first thing?', false)]);
    expect(carriesTrait(out, 'question', traitValue(rows[0]!, 'question'))).toBe(true);
    expect(out).toContain('answer "1923"');
  });
});
