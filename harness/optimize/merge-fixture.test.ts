import { describe, expect, it } from 'vitest';
import { calibrate } from './calibrate.ts';
import { exampleBlock } from './reflection.ts';
import { MERGE_RULES, MERGE_SEED, mergeCriticAnswer, mergeSolveChance } from './merge-fixture.ts';
import { syntheticRows } from './tradeoff.ts';
import type { Rollout } from './types.ts';

// The merge fixture (merge-fixture.ts): its chances written out by hand, the valley that stops one lineage, and
// GEPA's merge reaching both groups on a few seeds.

const [NUM_BROAD, NUM_REFINE] = MERGE_RULES.number;
const [TEXT_BROAD, TEXT_REFINE] = MERGE_RULES.text;
const withRules = (caller: string[], verifier: string[], checker: string[] = []) => ({
  caller: [MERGE_SEED.caller, ...caller].join('\n'),
  checker: [MERGE_SEED.checker, ...checker].join('\n'),
  verifier: [MERGE_SEED.verifier, ...verifier].join('\n'),
});

describe('the merge fixture', () => {
  it('a broad rule lifts its group and wipes out the other until refined; clutter costs 0.7', () => {
    expect(mergeSolveChance(MERGE_SEED, 'number')).toBeCloseTo(0.2);
    const broad = withRules([NUM_BROAD], []);
    expect([mergeSolveChance(broad, 'number'), mergeSolveChance(broad, 'text')]).toEqual([0.6, 0]);
    const refined = withRules([NUM_BROAD, NUM_REFINE], []);
    expect(mergeSolveChance(refined, 'number')).toBeCloseTo(0.9);
    expect(mergeSolveChance(refined, 'text')).toBeCloseTo(0.2);
    // The valley: on top of a fixed number group, the text group's broad rule costs every number row.
    const valley = withRules([NUM_BROAD, NUM_REFINE], [TEXT_BROAD]);
    expect([mergeSolveChance(valley, 'number'), mergeSolveChance(valley, 'text')]).toEqual([0, 0.6]);
    // The merge of two refined lineages: both groups at 0.9.
    const both = withRules([NUM_BROAD, NUM_REFINE], [TEXT_BROAD, TEXT_REFINE]);
    expect([mergeSolveChance(both, 'number'), mergeSolveChance(both, 'text')].map((x) => x.toFixed(2))).toEqual([
      '0.90',
      '0.90',
    ]);
    // A refined rule in a role that is not its home: no help, and clutter for every row.
    const misplaced = withRules([], [], [NUM_BROAD, NUM_REFINE]);
    expect(mergeSolveChance(misplaced, 'number')).toBeCloseTo(0.14);
    expect(mergeSolveChance(misplaced, 'text')).toBeCloseTo(0.14);
  });

  it("the critic reads the role's own output: it restricts its broad rule when the other kind fails there", () => {
    const rollout = (gold: string, roleSaid: string): Rollout => ({
      candidate: 'c1',
      row: gold,
      score: 0,
      error: null,
      tokens: { prompt: 0, completion: 0, total: 0 },
      feedback: {
        question: `What is ${gold}?`,
        gold,
        predicted: 'zzz',
        correct: false,
        rule: null,
        error: null,
        toolCalls: 1,
        toolErrors: [],
        answeredBy: 'verifier',
        runs: [
          { role: 'caller', agent: 'caller', final: `The chain ends with ${roleSaid}.`, toolErrors: 0, error: null },
        ],
        vote: null,
        forcedFinal: false,
      },
    });
    const prompt = (current: string, rs: Rollout[]) =>
      `<current_instruction>\n${current}\n</current_instruction>\n\n${rs.map((r, i) => exampleBlock(r, i + 1, 'caller')).join('\n\n')}`;
    const o = { misread: 0, seed: 0 };
    // Word answers broken at the caller, whose instruction has the broad number rule: the refinement.
    expect(
      mergeCriticAnswer(prompt(`Call.\n${NUM_BROAD}`, [rollout('Paris', '17'), rollout('Oslo', '3')]), 'k', o),
    ).toContain(NUM_REFINE.slice(2));
    // Word answers the caller passed on right are not the caller's to fix: no change.
    expect(mergeCriticAnswer(prompt('Call.', [rollout('Paris', 'Paris')]), 'k', o)).toBe(
      '<instruction>\nCall.\n</instruction>',
    );
    // Numbers broken at the caller: the broad number rule. ToolHop's binary codes look like numbers to it.
    expect(mergeCriticAnswer(prompt('Call.', [rollout('412', '419'), rollout('1101111', '7')]), 'k', o)).toContain(
      NUM_BROAD.slice(2),
    );
  });

  it('GEPA merges two lineages into both groups; without merge it ends lower (3 seeds, expected accuracy held out)', async () => {
    const rows = syntheticRows(182, 1);
    const seeds = [0, 1, 2];
    const gepa = await Promise.all(
      seeds.map((s) => calibrate(rows, 'gepa', s, { fixture: 'merge', budget: 600, trainSize: 30, valSize: 20 })),
    );
    const noMerge = await Promise.all(
      seeds.map((s) =>
        calibrate(rows, 'gepa, no merge', s, { fixture: 'merge', budget: 600, trainSize: 30, valSize: 20 }),
      ),
    );
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(gepa.reduce((n, r) => n + r.mergesKept, 0)).toBeGreaterThan(0);
    expect(mean(gepa.flatMap((r) => r.mergeGains))).toBeGreaterThan(0.1);
    expect(mean(gepa.map((r) => r.heldoutMean))).toBeGreaterThan(mean(noMerge.map((r) => r.heldoutMean)));
  });
});
