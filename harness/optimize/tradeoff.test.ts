import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pairedCompare } from '../stats/index.ts';
import { calibrate, type Method } from './calibrate.ts';
import { exampleBlock } from './reflection.ts';
import { criticAnswer, HAND_WRITTEN, SEED_PROMPTS, solveChance, syntheticRows, typeFromForm } from './tradeoff.ts';
import type { Rollout } from './types.ts';

// The trade-off fixture (tradeoff.ts): its rules written out by hand here, then GEPA's acceptance rule measured on
// it — a GEPA whose acceptance keeps ties or everything must lose to the real one on held-out rows.

const NUMBER_RULE =
  '- When the answer is a number: give the integer exactly as the last tool returned it, digits only.';
const ALWAYS_INTEGER = '- Always answer with a bare integer.';
const STRING_RULE =
  '- When the answer is a word or a code: copy it character for character, keeping case and punctuation.';

describe('the trade-off fixture', () => {
  it('a rule acts only in its home role; an overgeneral rule helps its type and halves every other type', () => {
    expect(solveChance(SEED_PROMPTS, 'number')).toBeCloseTo(0.2);
    expect(solveChance({ ...SEED_PROMPTS, caller: `${SEED_PROMPTS.caller}\n${NUMBER_RULE}` }, 'number')).toBeCloseTo(
      0.9,
    );
    // the same rule in another role does nothing
    expect(
      solveChance({ ...SEED_PROMPTS, verifier: `${SEED_PROMPTS.verifier}\n${NUMBER_RULE}` }, 'number'),
    ).toBeCloseTo(0.2);
    const overgeneral = { ...SEED_PROMPTS, caller: `${SEED_PROMPTS.caller}\n${ALWAYS_INTEGER}` };
    expect(solveChance(overgeneral, 'number')).toBeCloseTo(0.9);
    expect(solveChance(overgeneral, 'string')).toBeCloseTo(0.1);
    expect(solveChance(overgeneral, 'date')).toBeCloseTo(0.1);
    // the hand-written prompt: the overgeneral number rule in every role, acting only in the caller's
    expect(solveChance(HAND_WRITTEN, 'number')).toBeCloseTo(0.9);
    expect(solveChance(HAND_WRITTEN, 'letter')).toBeCloseTo(0.1);
  });

  it("the critic reads only the reflection prompt: the type it writes about comes from the gold answer's form", () => {
    expect(['412', '1101111', '1864-01-18', '1997-11-13 09:16', 's', 'al-Dawla'].map(typeFromForm)).toEqual([
      'number',
      'number',
      'date',
      'datetime',
      'letter',
      'string',
    ]);
    const rollout = (gold: string, correct: boolean): Rollout => ({
      candidate: 'c0',
      row: gold,
      score: correct ? 1 : 0,
      error: null,
      tokens: { prompt: 0, completion: 0, total: 0 },
      feedback: {
        question: `What is ${gold}?`,
        gold,
        predicted: correct ? gold : 'zzz',
        correct,
        rule: null,
        error: null,
        toolCalls: 1,
        toolErrors: [],
        answeredBy: 'verifier',
        runs: [],
        vote: null,
        forcedFinal: false,
      },
    });
    const prompt = (golds: Array<[string, boolean]>) =>
      `<current_instruction>\nCheck.\n</current_instruction>\n\n${golds.map(([g, c], i) => exampleBlock(rollout(g, c), i + 1, 'verifier')).join('\n\n')}`;
    // Two wrong word answers and a right number: the critic writes about words, whichever version (no misreads).
    const words = criticAnswer(
      prompt([
        ['al-Dawla', false],
        ['neslein', false],
        ['412', true],
      ]),
      'k',
      { overgeneral: 0, misread: 0, seed: 0 },
    );
    expect(words).toContain(STRING_RULE.slice(2));
    // A binary code (typed "string" in ToolHop) looks like a number to a reader: the critic writes the number rule.
    const binary = criticAnswer(prompt([['1101111', false]]), 'k', { overgeneral: 1, misread: 0, seed: 0 });
    expect(binary).toContain(ALWAYS_INTEGER.slice(2));
    expect(binary).toContain('Check.');
  });
});

describe('GEPA on the trade-off fixture: the acceptance rule matters', () => {
  const rows = syntheticRows(182, 1);
  const seeds = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const heldout = async (m: Method) =>
    new Map(await Promise.all(seeds.map(async (s) => [String(s), (await calibrate(rows, m, s)).heldoutMean] as const)));

  it('"always accept" and ">=" acceptance each do credibly worse on held-out rows than a strict minibatch gain (paired over seeds)', async () => {
    const gepa = await heldout('gepa');
    for (const broken of ['gepa, always accept', 'gepa, >= acceptance'] as const) {
      const c = pairedCompare(await heldout(broken), gepa, { metric: broken, seed: 0 });
      expect(c.diff, `${broken}: GEPA − variant`).toBeGreaterThan(0.04);
      expect(c.verdict, `${broken}: ${JSON.stringify({ diff: c.diff, lo: c.lo, hi: c.hi, p: c.pValue })}`).toBe(
        'credible gain',
      );
    }
  });
});

describe('a calibration run leaves nothing behind', () => {
  it("the search's scratch log folder is removed when the run ends", async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'tg-calibrate-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch; // where the run's own temporary folder goes
    try {
      const r = await calibrate(syntheticRows(182, 1), 'random', 0, { budget: 60, trainSize: 30, valSize: 20 });
      expect(r.spent).toBeGreaterThan(0);
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
