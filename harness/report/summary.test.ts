import { describe, expect, it } from 'vitest';
import { apibankAggregator } from '../apibank/aggregator.ts';
import { bfclAggregator } from '../bfcl/aggregator.ts';
import { genericAggregator } from '../kit/generic.ts';
import { mazeAggregator } from '../maze/aggregator.ts';
import { probeAggregator } from '../probe/aggregator.ts';
import { toolhopAggregator } from '../toolhop/aggregator.ts';
import { type Summary, summaryFooter } from './summary.ts';

describe("a terminal summary's last lines", () => {
  it('say where the report is, after the gate verdict when there is a gate', () => {
    expect(summaryFooter({ gate: null }, 'out/run')).toEqual(['  report: out/run/report.md']);
    expect(
      summaryFooter({ gate: { expression: 'accuracy>=0.5', passed: true, reasons: [], checks: [] } }, 'o'),
    ).toEqual(['  gate accuracy>=0.5: PASSED', '  report: o/report.md']);
    expect(
      summaryFooter(
        { gate: { expression: 'a>=1 && b<=0', passed: false, reasons: ['a is 0.5', 'b is 1'], checks: [] } },
        'o',
      ),
    ).toEqual(['  gate a>=1 && b<=0: FAILED (a is 0.5; b is 1)', '  report: o/report.md']);
  });
});

const gated = {
  header: { model: 'm' },
  config: {},
  counts: {},
  metrics: {},
  breakdowns: {},
  errors: [],
  extra: {},
  notice: null,
  gate: { expression: 'accuracy>=0.9', passed: false, reasons: ['accuracy is 0.5'], checks: [] },
} as unknown as Summary;

// Every suite's terminal summary ends with these lines (a summary with nothing else in it).
describe.each([
  ['toolhop', toolhopAggregator],
  ['apibank', apibankAggregator],
  ['maze', mazeAggregator],
  ['probe', probeAggregator],
  ['bfcl', bfclAggregator],
  ['generic', genericAggregator],
] as const)('%s terminal summary', (_, aggregator) => {
  it('ends with the gate verdict and the report path', () => {
    const lines = aggregator.terminal(gated, 'out/run').split('\n');
    expect(lines.slice(-2)).toEqual(['  gate accuracy>=0.9: FAILED (accuracy is 0.5)', '  report: out/run/report.md']);
  });
});
