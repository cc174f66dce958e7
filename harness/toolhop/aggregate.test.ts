import { describe, expect, it } from 'vitest';
import type { ToolhopMeta } from './meta.ts';
import { aggregateToolhop } from './aggregate.ts';

function meta(id: string, trial: number, correct: boolean, extra: Partial<ToolhopMeta> = {}): ToolhopMeta {
  return {
    suite: 'toolhop',
    id,
    trial,
    error: null,
    correct,
    pass: correct,
    rule: correct ? 'literal' : null,
    hops: 3,
    domain: 'd',
    answer_type: 'number',
    gold: '1',
    predicted: correct ? '1' : '2',
    turns: 4,
    tool_calls: 3,
    tool_errors: 0,
    forced_final: false,
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    model_latency_ms: 0,
    wall_ms: 0,
    retries: 0,
    ...extra,
  };
}

describe('ToolHop aggregation', () => {
  it('averages trials per instance before the interval: n counts rows, and pass@k / pass^k appear', () => {
    const metas = [
      ...[true, true, false].map((c, t) => meta('1', t, c)),
      ...[false, false, false].map((c, t) => meta('2', t, c)),
      ...[true, true, true].map((c, t) => meta('3', t, c)),
    ];
    const a = aggregateToolhop(metas, 0);
    expect(a.metrics.accuracy!.n).toBe(3);
    expect(a.metrics.accuracy!.value).toBeCloseTo((2 / 3 + 0 + 1) / 3, 10);
    expect(a.metrics['pass@3']!.value).toBeCloseTo(2 / 3, 10);
    expect(a.metrics['pass^3']!.value).toBeCloseTo(1 / 3, 10);
    expect(a.counts).toMatchObject({ instances: 3, runs: 9, correct: 5, wrong: 4 });
  });

  it('counts harness errors as wrong in accuracy, reports them apart, and breaks down by hops, domain and type', () => {
    const metas = [
      meta('1', 0, true),
      meta('2', 0, false, { error: 'endpoint failed', hops: 4, domain: 'e' }),
      meta('3', 0, false, { hops: 4 }),
    ];
    const a = aggregateToolhop(metas, 0);
    expect(a.metrics.accuracy!.value).toBeCloseTo(1 / 3, 10);
    expect(a.metrics.error_rate!.value).toBeCloseTo(1 / 3, 10);
    expect(a.errors).toEqual([{ id: '2', trial: 0, error: 'endpoint failed' }]);
    expect(Object.keys(a.breakdowns.hops!)).toEqual(['3', '4']);
    expect(a.breakdowns.hops!['4']!.accuracy!.n).toBe(2);
    expect(Object.keys(a.breakdowns.domain!)).toEqual(['d', 'e']);
  });

  it('does not depend on the order of the metas (shards merge to the same numbers)', () => {
    const metas = Array.from({ length: 40 }, (_, i) => meta(String(i), 0, i % 3 === 0, { domain: `d${i % 5}` }));
    const a = aggregateToolhop(metas, 7);
    const b = aggregateToolhop([...metas].reverse(), 7);
    expect(JSON.stringify(b.metrics)).toBe(JSON.stringify(a.metrics));
    expect(JSON.stringify(b.breakdowns)).toBe(JSON.stringify(a.breakdowns));
  });

  it('with clustering by domain, resamples whole domains: a wider interval when domains differ', () => {
    const metas = Array.from({ length: 120 }, (_, i) =>
      meta(String(i), 0, i % 4 === 0 ? true : i % 4 === 1, { domain: `d${i % 4}` }),
    );
    const plain = aggregateToolhop(metas, 1).metrics.accuracy!;
    const clustered = aggregateToolhop(metas, 1, 'domain').metrics.accuracy!;
    expect(clustered.method).toBe('cluster_bootstrap');
    expect(clustered.value).toBeCloseTo(plain.value, 10);
    expect(clustered.hi - clustered.lo).toBeGreaterThan(plain.hi - plain.lo);
  });
});
