import { describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import { reproHeader } from '../core/repro.ts';
import { buildSummary } from '../report/summary.ts';
import { probeAggregator } from './aggregator.ts';
import { axesSections } from './arms-markdown.ts';

// A probe report's lineup caption and chart titles say what answered the run: the simulator, a test model (random
// weights on a real engine) or a model — read from the header's flags, never assumed.
const row = (label: string) => ({
  label,
  metrics: { accuracy: { value: 0.5, lo: 0.1, hi: 0.9, n: 4 } },
  categories: {},
  toolhound: {},
  refinements: {},
  toolgauge: {},
});

function summaryAnsweredBy(by: 'simulator' | 'test model' | 'model') {
  const base = reproHeader(readConfig({}), { startedAt: new Date(0), endedAt: new Date(0) });
  const engine = {
    engine: 'node-llama-cpp',
    llama_cpp_build: null,
    file: 'tiny.gguf',
    sha256: 'a'.repeat(64),
    tensor_type: 'F16',
    chat_template_sha256: null,
    test_model: by === 'test model',
  };
  const header = {
    ...base,
    simulated: by === 'simulator',
    model: by === 'simulator' ? 'sim:oracle' : 'gguf:tiny.gguf',
    ...(by === 'simulator' ? {} : { engine }),
  };
  const arm = (model: string) => ({ label: model, key: model, arm: { decode: 'free', method: 'baseline', model } });
  return buildSummary({
    suite: 'probe',
    header,
    config: { transport: 'chat' },
    counts: {},
    metrics: {},
    breakdowns: {},
    errors: [],
    extra: {
      axes: {
        decode: ['free'],
        method: ['baseline'],
        model: ['a', 'b'],
        reference: 'a',
        varying: ['model'],
        arms: [arm('a'), arm('b')].map((a) => ({ ...a, runs: 4, errors: 0, mechanisms: [] })),
      },
      lineup: [row('a'), row('b')],
    },
    gate: null,
  });
}

const caption = (md: string[]) => md.find((l) => l.startsWith('One row per model'))!;
const lineupChartTitle = (s: ReturnType<typeof summaryAnsweredBy>) =>
  /Lineup: accuracy per model \(95% CI\)[^<"]*/.exec(
    probeAggregator.charts(s).find((c) => c.file === 'charts/lineup.svg')!.svg,
  )![0];

describe("a probe report's lineup says what answered the run", () => {
  it('a test model (gguf:, random weights) is called a test model, not a simulator', () => {
    const s = summaryAnsweredBy('test model');
    expect(caption(axesSections(s))).toMatch(/Test model run \(random weights\)/);
    expect(caption(axesSections(s))).not.toMatch(/[Ss]imulator/);
    expect(lineupChartTitle(s)).toMatch(/— test model/);
    expect(lineupChartTitle(s)).not.toMatch(/simulator/);
  });

  it('the simulator is called the simulator', () => {
    const s = summaryAnsweredBy('simulator');
    expect(caption(axesSections(s))).toMatch(/Simulator run: these numbers describe the harness, not a model\./);
    expect(lineupChartTitle(s)).toMatch(/— simulator/);
  });

  it('a model gets no caveat', () => {
    const s = summaryAnsweredBy('model');
    expect(caption(axesSections(s))).not.toMatch(/[Ss]imulator|[Tt]est model/);
    expect(lineupChartTitle(s)).not.toMatch(/simulator|test model/);
  });
});
