import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateRate } from '../stats/index.ts';
import { compareRuns, CompareRefused, type RunOutcomes } from './compare.ts';
import { buildSummary, flattenMetrics, gateMetrics, nestMetrics, SummarySchema } from './summary.ts';
import { barChart } from './svg.ts';
import { gateActual, headerBlock } from './markdown.ts';
import { evaluateGate } from '../kit/gate.ts';
import { reproHeader } from '../core/repro.ts';
import { readConfig } from '../core/config.ts';

const est = (xs: number[]) => estimateRate(xs, { denominator: 'things', seed: 1 });

describe('summary.json', () => {
  it('nests dotted metric names and flattens them back', () => {
    const flat = { accuracy: est([1, 0, 1]), 'tsr.P2': est([1, 1]), 'tsr.P0': est([0]) };
    const nested = nestMetrics(flat) as Record<string, Record<string, unknown>>;
    expect(Object.keys(nested)).toEqual(['accuracy', 'tsr']);
    expect(Object.keys(nested.tsr!)).toEqual(['P0', 'P2']);
    expect(Object.keys(flattenMetrics(nested as never)).sort()).toEqual(['accuracy', 'tsr.P0', 'tsr.P2']);
  });

  it('writes NaN as null and validates against the schema; gates read null as undefined', () => {
    const header = reproHeader(readConfig({}), { startedAt: new Date(0), endedAt: new Date(0) });
    const s = buildSummary({
      suite: 'toolhop',
      header,
      config: {},
      counts: { instances: 0 },
      metrics: { accuracy: est([]) },
      breakdowns: {},
      errors: [],
      gate: null,
    });
    expect(SummarySchema.parse(JSON.parse(JSON.stringify(s)))).toBeTruthy();
    expect((s.metrics.accuracy as { value: unknown }).value).toBeNull();
    expect(s.notice).toMatch(/SIMULATOR RUN/);
    expect(Number.isNaN(gateMetrics(s).accuracy!.value)).toBe(true);
  });
});

describe('the gate table in report.md', () => {
  it('shows a value just under the threshold with its digits, not rounded onto the threshold', () => {
    const header = reproHeader(readConfig({}), { startedAt: new Date(0), endedAt: new Date(0) });
    const s = buildSummary({
      suite: 'x',
      header,
      config: {},
      counts: { instances: 1 },
      metrics: {},
      breakdowns: {},
      errors: [],
      gate: null,
    });
    const gate = evaluateGate(
      'pass_rate>=0.3',
      { pass_rate: { value: 0.299993, lo: 0.2, hi: 0.4, n: 10 } },
      { instances: 10, harnessErrors: 0 },
    );
    s.gate = { ...gate, checks: gate.checks.map((c) => ({ ...c })) };
    expect(headerBlock('T', s)).toMatch(/\| pass_rate&gt;=0\.3 \| 0\.299993 \| fail \|/);
  });

  it('never puts the shown value on the other side of the threshold (or on it) from the actual one', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.integer({ min: -6, max: 6 }),
        (a, t, nudge) => {
          // Values at and a few ulps around the threshold, where rounding misleads.
          const actual = nudge === 0 ? a : t + nudge * 1e-6;
          const shown = Number(gateActual(actual, t));
          expect(Math.sign(shown - t)).toBe(Math.sign(actual - t));
        },
      ),
    );
  });
});

describe('SVG charts', () => {
  it('draws one bar and one whisker per estimate, and says when there is no data', () => {
    const svg = barChart(
      [
        { label: 'a', value: 0.5, lo: 0.4, hi: 0.6, n: 100 },
        { label: 'b<&>', value: 0.9, lo: 0.8, hi: 0.95, n: 50, note: 'credible gain' },
        { label: 'c', value: null, lo: null, hi: null, n: 0 },
      ],
      { title: 'T', reference: { value: 0.7, label: 'gate' } },
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<rect [^>]*fill="#4c78a8"/g)).toHaveLength(2);
    expect(svg).toContain('b&lt;&amp;&gt;');
    expect(svg).toContain('no data (n=0)');
    expect(svg).toContain('credible gain');
    expect(svg).toContain('stroke-dasharray');
  });
  it('keeps every coordinate inside the canvas for any rate', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: -1, max: 2, noNaN: true }), fc.double({ min: -1, max: 2, noNaN: true })), {
          minLength: 1,
          maxLength: 8,
        }),
        (pairs) => {
          const svg = barChart(
            pairs.map(([v, w], i) => ({ label: `x${i}`, value: v, lo: Math.min(v, w), hi: Math.max(v, w), n: 1 })),
            { title: 't' },
          );
          const xs = [...svg.matchAll(/ x[12]?="(-?[\d.]+)"/g)].map((m) => Number(m[1]));
          const width = Number(/width="(\d+)"/.exec(svg)![1]);
          return xs.every((x) => x >= 0 && x <= width);
        },
      ),
    );
  });
});

describe('paired comparison of saved runs', () => {
  const run = (label: string, outcomes: Record<string, number>, sha = 'abc'): RunOutcomes => ({
    label,
    dir: label,
    suite: 'toolhop',
    datasetSha256: sha,
    outcomes: { accuracy: new Map(Object.entries(outcomes)) },
  });
  it('refuses different datasets and instance sets unless partial comparisons are allowed', () => {
    expect(() => compareRuns([run('a', { '1': 1 }), run('b', { '1': 1 }, 'def')])).toThrow(CompareRefused);
    expect(() => compareRuns([run('a', { '1': 1, '2': 0 }), run('b', { '1': 1 })])).toThrow(
      /1 only in the first, 0 only in the second/,
    );
    const c = compareRuns([run('a', { '1': 1, '2': 0 }), run('b', { '1': 1 })], { allowPartial: true });
    expect(c[0]).toMatchObject({ shared: 1, onlyInBaseline: 1, onlyInCandidate: 0 });
    expect(() => compareRuns([run('a', {})])).toThrow(/at least two runs/);
  });
  it('refuses runs that share no instance, even when partial comparisons are allowed', () => {
    expect(() => compareRuns([run('a', { '1': 1, '2': 0 }), run('b', { '3': 1 })], { allowPartial: true })).toThrow(
      new CompareRefused('a and b share no instances (2 in the first, 1 in the second): there is nothing to compare'),
    );
  });
  it('corrects for multiplicity across candidates (Holm)', () => {
    const ids = Array.from({ length: 60 }, (_, i) => String(i));
    const base = Object.fromEntries(ids.map((id) => [id, 0]));
    const better = Object.fromEntries(ids.map((id, i) => [id, i < 12 ? 1 : 0]));
    const [c1, c2] = compareRuns([run('a', base), run('b', better), run('c', better)]);
    expect(c1!.results[0]!.pAdjusted).toBeGreaterThanOrEqual(c1!.results[0]!.pValue);
    expect(c1!.results[0]!.verdict).toBe('credible gain');
    expect(c2!.results[0]!.verdict).toBe('credible gain');
  });
});

describe('report --compare refuses what is not comparable', () => {
  const run = (dir: string, config: Record<string, unknown>) => ({
    label: dir,
    dir,
    suite: 'maze',
    datasetSha256: 'd',
    outcomes: {
      'tsr.P1': new Map([
        ['t1', 1],
        ['t2', 0],
      ]),
    },
    config,
  });
  it('runs whose judge or agent mode differ, unless --allow-partial', () => {
    expect(() =>
      compareRuns([run('a', { judge: 'compat', agent: 'fc' }), run('b', { judge: 'strict', agent: 'fc' })], {
        comparableOn: ['judge', 'agent'],
      }),
    ).toThrow(/ran with judge "strict" but a with "compat"/);
    expect(() =>
      compareRuns([run('a', { judge: 'compat', agent: 'fc' }), run('b', { judge: 'compat', agent: 'prompt' })], {
        comparableOn: ['judge', 'agent'],
      }),
    ).toThrow(/agent "prompt"/);
    expect(
      compareRuns([run('a', { judge: 'compat', agent: 'fc' }), run('b', { judge: 'strict', agent: 'fc' })], {
        comparableOn: ['judge', 'agent'],
        allowPartial: true,
      }),
    ).toHaveLength(1);
  });
  it('words a rise of a lower-is-better metric as worse, never as a gain', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `i${i}`);
    const a = {
      label: 'a',
      dir: 'a',
      suite: 'probe',
      datasetSha256: 'd',
      outcomes: { false_trigger: new Map(ids.map((id) => [id, 0])), accuracy: new Map(ids.map((id) => [id, 0])) },
    };
    const b = {
      label: 'b',
      dir: 'b',
      suite: 'probe',
      datasetSha256: 'd',
      outcomes: { false_trigger: new Map(ids.map((id) => [id, 1])), accuracy: new Map(ids.map((id) => [id, 1])) },
    };
    const [c] = compareRuns([a, b], { lowerIsBetter: ['false_trigger'] });
    expect(c!.results.find((r) => r.metric === 'false_trigger')!.verdict).toBe('credible rise (worse)');
    expect(c!.results.find((r) => r.metric === 'accuracy')!.verdict).toBe('credible gain');
  });
});
