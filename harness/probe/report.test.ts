import { describe, expect, it } from 'vitest';
import { buildSummary } from '../report/summary.ts';
import { reproHeader } from '../core/repro.ts';
import { readConfig } from '../core/config.ts';
import { scoreTier } from '../calls/score/index.ts';
import { aggregateProbe, probeMarkdown, probeOutcomes } from './report.ts';
import type { ProbeMeta } from './run/types.ts';
import type { Cause, VerdictKind } from '../calls/attribute/index.ts';

const tool = {
  type: 'function' as const,
  function: { name: 'f', parameters: { type: 'object', properties: { x: { type: 'string' } } } },
};
const call = { name: 'f', arguments: { x: 'a' } };

function meta(
  id: string,
  cat: string,
  opts: {
    expects: boolean;
    strictOk: boolean;
    lenientOk: boolean;
    cause?: [Cause | null, VerdictKind];
    error?: string;
    trial?: number;
  },
): ProbeMeta {
  const c = { tools: [tool], rules: {}, expected: opts.expects ? [call] : null };
  const obs = (ok: boolean) =>
    opts.expects
      ? { calls: ok ? [call] : [], attempted: !ok, truncated: false }
      : { calls: ok ? [] : [call], attempted: !ok, truncated: false };
  const [cause, kind] = opts.cause ?? [null, 'pass'];
  return {
    suite: 'probe',
    id,
    trial: opts.trial ?? 0,
    cat,
    family: `${cat}_fam${id.length % 2}`,
    split: 'dev',
    error: opts.error ?? null,
    transport: 'chat',
    model: 'sim:oracle',
    expects_call: opts.expects,
    expected: c.expected,
    output: { content: 'raw', tool_calls: [], finish_reason: 'stop' },
    prompt_sha256: null,
    parse: null,
    parse_tier: 'none',
    scores: { strict: scoreTier(c, obs(opts.strictOk)), lenient: scoreTier(c, obs(opts.lenientOk)) },
    passed: { strict: opts.strictOk, lenient: opts.lenientOk },
    pass: opts.strictOk && !opts.error,
    cause: {
      strict: { cause: opts.strictOk ? null : cause, kind: opts.strictOk ? 'pass' : kind, evidence: 'e' },
      lenient: { cause: opts.lenientOk ? null : cause, kind: opts.lenientOk ? 'pass' : kind, evidence: 'e' },
    },
    template_sha256: null,
    template_findings: [],
    counterfactual: null,
    latency_ms: 1,
    attempts: 1,
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    wall_ms: 1,
  };
}

const metas: ProbeMeta[] = [
  meta('a1', 'C1', { expects: true, strictOk: true, lenientOk: true }),
  meta('a2', 'C1', { expects: true, strictOk: false, lenientOk: true, cause: ['framework_parser_gap', 'parser_gap'] }),
  meta('a3', 'C1', { expects: true, strictOk: false, lenientOk: false, cause: ['model_format_failure', 'truncated'] }),
  meta('b1', 'C5', { expects: false, strictOk: true, lenientOk: true }),
  meta('b2', 'C5', {
    expects: false,
    strictOk: false,
    lenientOk: false,
    cause: ['model_decision_failure', 'false_trigger'],
  }),
  meta('e1', 'C1', { expects: true, strictOk: false, lenientOk: false, error: 'endpoint: down' }),
];

describe('probe aggregation', () => {
  const a = aggregateProbe(metas, 0);

  it('every layer has its own denominator; harness errors are left out and counted apart', () => {
    expect(a.metrics.accuracy).toMatchObject({ value: 2 / 5, n: 5 });
    expect(a.metrics['lenient.accuracy']).toMatchObject({ value: 3 / 5, n: 5 });
    expect(a.metrics.parse_ok).toMatchObject({ value: 1 / 3, n: 3, denominator: 'call-expected cases' });
    expect(a.metrics['lenient.parse_ok']).toMatchObject({ value: 2 / 3, n: 3 });
    expect(a.metrics.schema_valid).toMatchObject({ value: 1, n: 1 });
    expect(a.metrics.args_correct).toMatchObject({ n: 1 });
    expect(a.metrics.abstained).toMatchObject({ value: 0.5, n: 2 });
    expect(a.metrics.false_trigger).toMatchObject({ value: 0.5, n: 2 });
    expect(a.metrics.error_rate).toMatchObject({ value: 1 / 6, n: 6 });
    expect(a.metrics['attribution.strict.framework_parser_gap']).toMatchObject({ value: 1 / 5 });
    expect(a.metrics['attribution.lenient.framework_parser_gap']).toMatchObject({ value: 0 });
    expect(a.counts).toMatchObject({
      instances: 6,
      errors: 1,
      passed: 2,
      passed_lenient: 3,
      call_expected: 3,
      abstention: 2,
    });
    expect(a.errors).toEqual([{ id: 'e1', trial: 0, error: 'endpoint: down' }]);
  });

  it('attribution counts under both tiers, details apart; per-category breakdowns', () => {
    expect(a.extra.attribution).toEqual({
      strict: { passed: 2, framework_parser_gap: 1, model_format_failure: 1, model_decision_failure: 1 },
      lenient: { passed: 3, model_format_failure: 1, model_decision_failure: 1 },
    });
    expect((a.extra.attribution_kinds as Record<string, Record<string, number>>).strict).toMatchObject({
      truncated: 1,
      parser_gap: 1,
      false_trigger: 1,
    });
    expect(Object.keys(a.breakdowns.category!)).toEqual(['C1', 'C5']);
    expect(a.breakdowns.category!.C1!.parse_ok).toMatchObject({ value: 1 / 3, n: 3 });
    expect(a.breakdowns.category!.C5!.abstained).toMatchObject({ value: 0.5, n: 2 });
  });

  it('trials are averaged per case before any interval (n counts cases)', () => {
    const t = aggregateProbe(
      [
        meta('a1', 'C1', { expects: true, strictOk: true, lenientOk: true }),
        meta('a1', 'C1', {
          expects: true,
          strictOk: false,
          lenientOk: false,
          trial: 1,
          cause: ['model_decision_failure', 'no_call_attempted'],
        }),
      ],
      0,
    );
    expect(t.metrics.accuracy).toMatchObject({ value: 0.5, n: 1 });
  });

  it('per-case outcomes for paired comparisons hold only the cases in each denominator', () => {
    const o = probeOutcomes(metas);
    expect([...o.accuracy!.entries()]).toEqual([
      ['a1', 1],
      ['a2', 0],
      ['a3', 0],
      ['b1', 1],
      ['b2', 0],
    ]);
    expect([...o.parse_ok!.keys()]).toEqual(['a1', 'a2', 'a3']);
    expect([...o['lenient.parse_ok']!.values()]).toEqual([1, 1, 0]);
    expect([...o.abstained!.keys()]).toEqual(['b1', 'b2']);
    // A run with no call-expected case has nothing to pair on the call layers.
    expect(Object.keys(probeOutcomes(metas.filter((m) => !m.expects_call)))).not.toContain('parse_ok');
  });

  it('report.md: layered table with both tiers, attribution side by side, category rows, failures and repros', () => {
    const header = reproHeader(readConfig({}), { startedAt: new Date(0), endedAt: new Date(0) });
    const s = buildSummary({
      suite: 'probe',
      header,
      config: { transport: 'chat', cases_file: 'c.jsonl', template: null },
      counts: a.counts,
      metrics: a.metrics,
      breakdowns: a.breakdowns,
      errors: a.errors,
      extra: a.extra,
      gate: null,
    });
    expect(s.metrics.lenient).toBeDefined();
    const md = probeMarkdown(s);
    expect(md).toContain('| metric | strict [95% CI] | n | lenient [95% CI] | n | denominator |');
    expect(md).toMatch(/\| parse_ok \| 0\.333 \[[\d.]+, [\d.]+\] \| 3 \| 0\.667 /);
    expect(md).toMatch(/\| framework: parser gap \| 1 \| 33\.3% \| 0 \| 0\.0% \|/);
    expect(md).toMatch(/\| truncated call \| 1 \| 1 \|/);
    expect(md).toContain('| C5 abstention traps |');
    expect(md).toContain('calibration fixture');
    expect(md).toContain('### framework: parser gap — a2');
    expect(md).toContain('## Harness errors');
  });
});
