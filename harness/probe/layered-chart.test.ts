// The probe's layered chart and its by-category table show accuracy and then every layer, in the scoring order.
import { describe, expect, it } from 'vitest';
import type { Summary } from '../report/summary.ts';
import { probeAggregator } from './aggregator.ts';
import { probeMarkdown } from './report.ts';

const estimate = (value: number) => ({
  value,
  lo: value,
  hi: value,
  n: 4,
  denominator: 'cases',
  method: 'wilson',
  level: 0.95,
});
const LAYERS = ['accuracy', 'parse_ok', 'schema_valid', 'tool_correct', 'args_correct', 'abstained', 'false_trigger'];

const summary = {
  header: { model: 'm' },
  config: { transport: 'chat' },
  counts: {},
  metrics: Object.fromEntries(LAYERS.map((m, i) => [m, estimate(i / 10)])),
  breakdowns: { category: { A: Object.fromEntries(LAYERS.map((m) => [m, estimate(0.5)])) } },
  errors: [],
  extra: {},
  notice: null,
  gate: null,
} as unknown as Summary;

describe('the probe layered chart', () => {
  it('has a strict and a lenient bar for accuracy and each layer, in order', () => {
    const svg = probeAggregator.charts(summary).find((c) => c.file === 'charts/layered.svg')!.svg;
    const labels = [...svg.matchAll(/>(\w+) \((strict|lenient)\)</g)].map((m) => `${m[1]} ${m[2]}`);
    expect(labels).toEqual(LAYERS.flatMap((m) => [`${m} strict`, `${m} lenient`]));
  });
});

describe("the probe report's table by category", () => {
  it('has a column for accuracy and each layer, in order, then the lenient accuracy', () => {
    const md = probeMarkdown(summary);
    const head = md.split('\n').find((l) => l.startsWith('| category'))!;
    expect(
      head
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean),
    ).toEqual(['category', ...LAYERS, 'lenient accuracy']);
  });
});
