import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../harness/core/paths.ts';
import { chartFigures, chartSeries, scaleChart } from './scale-chart.ts';

// The scale charts are drawn from the records' figures: redrawn from the committed records they must be the committed
// SVGs, byte for byte (a chart that no longer matches its record, or series read wrong from the figures, fails).
describe('the scale charts', () => {
  it.each([
    ['scale', 'toolgauge eval: CPU per instance against n (sim:oracle, --concurrency 64)', 'CPU-ms per instance'],
    [
      'scale-toolhop',
      'toolgauge toolhop: CPU per run against n (sim:oracle, --concurrency 64, pyodide)',
      'CPU-ms per run',
    ],
  ])('docs/benchmarks-%s.svg is its records drawn again', (name, title, valueLabel) => {
    const svg = scaleChart(chartSeries(chartFigures(name)), { title, valueLabel });
    expect(svg).toBe(readFileSync(fromRoot('docs', `benchmarks-${name}.svg`), 'utf8'));
  });

  it('reads each latency as its own series, leaves n = 10 out, and divides view --export by the runs', () => {
    const series = chartSeries({
      n10_cpu_us_per_instance: 400_000,
      n1000_cpu_us_per_instance: 7_000,
      n10000_cpu_us_per_instance: 2_500,
      n1000_l50_cpu_us_per_instance: 6_500,
      n1000_view_cpu_ms: 1_000,
      n1000_runs: 1_092,
    });
    expect(series).toEqual([
      {
        label: 'run, 0 ms latency',
        points: [
          { n: 1000, value: 7 },
          { n: 10000, value: 2.5 },
        ],
      },
      { label: 'run, 50 ms latency', points: [{ n: 1000, value: 6.5 }] },
      { label: 'view --export', points: [{ n: 1000, value: 1000 / 1092 }] },
    ]);
  });
});
