import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ComparisonJson, LineupRow } from '../../harness/probe/arms-report.ts';
import type { ProbeRecord } from '../../harness/probe/run/types.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { probeAggregator } from '../../harness/probe/aggregator.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { flattenMetrics, SummarySchema } from '../../harness/report/summary.ts';
import { readJson, readLines, tempDir } from '../helpers/cli.ts';

// The axes end to end in one run: three simulated models × free/constrained decoding × baseline/PA-Tool on 20 cases
// (16 that expect a call, 4 abstention traps) = 240 tests, one report. The run is the kit's, in this process
// (sessions, files and finalize over HTTP to the simulator), with the variables the command's flags set
// (harness/probe/command.ts; `--model a,b,c` is TOOLGAUGE_MODEL a and TOOLGAUGE_PROBE_MODELS a,b,c): the command
// with axes, and Vitest's test names carrying the arms, are checked on a real engine in gguf-axes.test.ts.

const IDS = [
  'c1_weather_test_000',
  'c1_weather_test_001',
  'c1_weather_test_002',
  'c1_weather_test_003',
  'c1_weather_test_004',
  'c1_stock_test_000',
  'c2_sms_test_000',
  'c2_sms_test_001',
  'c2_sms_test_002',
  'c2_sms_test_003',
  'c3_currency_test_000',
  'c3_currency_test_001',
  'c3_currency_test_002',
  'c3_currency_test_003',
  'c3_flight_test_000',
  'c3_flight_test_001',
  'c5_gratitude_test_000',
  'c5_gratitude_test_001',
  'c5_gratitude_test_002',
  'c5_gratitude_test_003',
];
const FORMAT = 'sim:fault?cause=format_failure';
const DECISION = 'sim:fault?cause=decision_failure';

describe('toolgauge probe with axes (simulator)', () => {
  it('--model a,b,c --decode free,constrained --method baseline,pa_tool: paired arms, one lineup table, worded verdicts', async () => {
    const out = tempDir('probe-axes');
    const run = await runSuite(probeSuite, {
      TOOLGAUGE_MODEL: FORMAT,
      TOOLGAUGE_PROBE_MODELS: `${FORMAT},${DECISION},sim:oracle`,
      TOOLGAUGE_PROBE_DECODE: 'free,constrained',
      TOOLGAUGE_PROBE_METHOD: 'baseline,pa_tool',
      TOOLGAUGE_PROBE_PA_TOOL_SAMPLES: '4',
      TOOLGAUGE_PROBE_TOP_P: '0.95',
      TOOLGAUGE_PROBE_ONLY: IDS.join(','),
      TOOLGAUGE_OUT_DIR: out,
    });
    expect(run.finalized.harnessErrors).toBe(0);
    // each case × arm is one instance, its id carries the arm
    expect(run.metas.map((m) => m.id)).toContain(
      'c3_currency_test_001|decode=constrained|method=pa_tool|model=sim:fault_cause_format_failure',
    );
    const terminal = probeAggregator.terminal(run.finalized.summary, out);

    const recs = readLines<ProbeRecord>(join(out, 'cases.jsonl'));
    expect(recs).toHaveLength(IDS.length * 12);
    expect(recs.every((x) => !x.error)).toBe(true);
    // PA-Tool: the model was asked (and answered) in presented names, the record is scored in the original ones
    const pa = recs.filter(
      (x) => x.arm?.method === 'pa_tool' && x.arm.model === 'sim:oracle' && x.arm.decode === 'free' && x.expected,
    );
    expect(pa.every((x) => x.passed.strict)).toBe(true);
    expect(
      pa.filter((x) => x.output!.tool_calls.some((t, i) => t.name !== x.parse!.strict.calls[i]?.name)).length,
    ).toBeGreaterThan(pa.length / 2);

    const s = SummarySchema.parse(readJson(join(out, 'summary.json')));
    expect(s.header.generation).toMatchObject({
      top_p: 0.95,
      decode: ['free', 'constrained'],
      method: ['baseline', 'pa_tool'],
    });
    expect(Object.keys(s.breakdowns.arm ?? {})).toHaveLength(12);
    const decode = s.extra.decode_comparisons as ComparisonJson[];
    const word = (model: string, method: string, metric: string) =>
      decode.find((c) => c.at.model === model && c.at.method === method)!.rows.find((x) => x.metric === metric)
        ?.verdict;
    for (const method of ['baseline', 'pa_tool']) {
      expect(word('sim:fault_cause_format_failure', method, 'parse_ok'), method).toBe('improved');
      expect(word('sim:fault_cause_format_failure', method, 'layers.schema_valid.over_call_expected'), method).toBe(
        'improved',
      );
      for (const m of [
        'layers.tool_correct.given_parse_ok',
        'layers.args_correct.given_tool_correct',
        'layers.args_correct.over_call_expected',
      ])
        expect(word('sim:fault_cause_decision_failure', method, m), `${method} ${m}`).toBe('no credible change');
    }
    // the method arm changes nothing for the oracle: its calls map back
    const method = (s.extra.method_comparisons as ComparisonJson[]).find(
      (c) => c.at.model === 'sim:oracle' && c.at.decode === 'free',
    )!;
    expect(method.rows.find((x) => x.metric === 'accuracy')).toMatchObject({
      a: 1,
      b: 1,
      verdict: 'no credible change',
    });
    // one lineup table, three rows; pairwise comparisons worded by direction (a rising false_trigger is worse)
    const lineup = s.extra.lineup as LineupRow[];
    expect(lineup.map((x) => x.label)).toEqual([
      'sim:fault_cause_format_failure',
      'sim:fault_cause_decision_failure',
      'sim:oracle',
    ]);
    const pairs = s.extra.model_comparisons as ComparisonJson[];
    expect(pairs).toHaveLength(3);
    expect(pairs[0]!.rows.find((x) => x.metric === 'false_trigger')).toMatchObject({ a: 0, b: 1, better: 'lower' });
    expect(pairs[2]!.rows.find((x) => x.metric === 'accuracy')).toMatchObject({
      a: 0,
      b: 1,
      better: 'higher',
      verdict: 'improved',
    });

    // Toolhound's decision tree, over the reference arm (the format-failure model): every failing call-expecting
    // case is a format failure, nothing is blamed on the framework
    const flat = flattenMetrics(s.metrics);
    const th = (c: string) => flat[`attribution.toolhound.${c}`];
    expect(th('model_format_failure')).toMatchObject({ n: IDS.length });
    expect(th('model_format_failure')!.value).toBeGreaterThan(0.5);
    for (const c of ['framework_template_bug', 'framework_parser_gap', 'model_decision_failure'])
      expect(th(c)?.value, c).toBe(0);
    // the terminal summary names the arms and the verdicts
    expect(terminal).toMatch(/arms: 12 \(decode × method × model\); headline = reference arm/);
    expect(terminal).toMatch(/Decode comparison: free → constrained.*parse_ok improved/);

    const md = readFileSync(join(out, 'report.md'), 'utf8');
    // one row per model in the endpoints table, each marked as the simulator
    expect(md.match(/^\| .* \| toolgauge simulator \|/gm)).toHaveLength(3);
    expect(md).toMatch(/## Decode comparison[\s\S]*## Method comparison[\s\S]*## Lineup[\s\S]*## Model comparisons/);
    expect(md.match(/^\| model \| accuracy \| parse_ok/gm)).toHaveLength(1);
    expect(md).not.toMatch(/\bgain\b/);
    expect(md).toMatch(/Simulator run/);
    for (const f of ['charts/decode.svg', 'charts/lineup.svg']) expect(existsSync(join(out, f)), f).toBe(true);
  });
});
