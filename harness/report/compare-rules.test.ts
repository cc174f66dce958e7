// `report --compare` and the probe's arm tables carry Toolhound's rule beside the paired verdict: the verdict stays
// the paired test's, and a row where the rules disagree is marked. Runs constructed so the outcome is known by hand
// (harness/stats/disjoint-ci.test.ts works the numbers out).

import { describe, expect, it } from 'vitest';
import { compareArms } from '../probe/axes/compare-tables.ts';
import { compareRuns, comparisonMarkdown, type RunOutcomes } from './compare.ts';

const run = (n: number, f: (i: number) => number) => new Map(Array.from({ length: n }, (_, i) => [`i${i}`, f(i)]));

// accuracy: 20 → 28 of 40 with 8 gains, no loss (paired credible, CIs overlap);
// no_call (lower is better): 40 → 0 of 40 (both rules credible, a fall worded as an improvement).
const base: RunOutcomes = {
  label: 'base',
  dir: 'runs/base',
  suite: 'probe',
  datasetSha256: 'x',
  outcomes: { accuracy: run(40, (i) => (i < 20 ? 1 : 0)), no_call: run(40, () => 1) },
};
const cand: RunOutcomes = {
  ...base,
  label: 'cand',
  dir: 'runs/cand',
  outcomes: { accuracy: run(40, (i) => (i < 28 ? 1 : 0)), no_call: run(40, () => 0) },
};

describe("Toolhound's rule in comparisons", () => {
  it('report --compare: the verdict is the paired one, the rule sits beside it, a disagreement is marked', () => {
    const [c] = compareRuns([base, cand], { lowerIsBetter: ['no_call'] });
    const acc = c!.results.find((r) => r.metric === 'accuracy')!;
    expect(acc.verdict).toBe('credible gain');
    expect(acc.toolhoundRule).toMatchObject({ disjoint: false, verdict: 'no credible change', agrees: false });
    const nc = c!.results.find((r) => r.metric === 'no_call')!;
    expect(nc.verdict).toBe('credible fall (improved)');
    expect(nc.toolhoundRule).toMatchObject({ disjoint: true, verdict: 'credible fall (improved)', agrees: true });
    // comparison.json is this array as JSON: the rule's fields survive it
    const json = JSON.parse(JSON.stringify([c])) as Array<{ results: Array<{ toolhoundRule: { a: { lo: number } } }> }>;
    expect(json[0]!.results[1]!.toolhoundRule.a.lo).toBe(1);
    const md = comparisonMarkdown([c!], null);
    expect(md).toContain("Toolhound's rule (disjoint CIs)");
    const accRow = md.split('\n').find((l) => l.startsWith('| accuracy'))!;
    expect(accRow).toContain('**credible gain**');
    expect(accRow).toMatch(/no credible change ≠ \|$/);
    const ncRow = md.split('\n').find((l) => l.startsWith('| no_call'))!;
    expect(ncRow).toContain('[1.000, 1.000] · [0.000, 0.000]');
    expect(ncRow).not.toContain('≠');
  });

  it("the probe's comparison tables (lineup, decode, method) carry the same two columns", () => {
    const t = compareArms(
      { label: 'm1', outcomes: { accuracy: base.outcomes.accuracy! } },
      { label: 'm2', outcomes: { accuracy: cand.outcomes.accuracy! } },
      { title: 'Models: m1 → m2' },
    );
    expect(t.rows[0]!.word).toBe('improved');
    expect(t.rows[0]!.toolhound).toMatchObject({ word: 'no credible change', agrees: false, disjoint: false });
    expect(t.markdown).toContain("| Toolhound: CIs m1 · m2 | Toolhound's rule |");
    expect(t.markdown).toMatch(/\| no credible change ≠ \|/);
  });
});
