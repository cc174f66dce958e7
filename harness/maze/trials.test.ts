import { describe, expect, it } from 'vitest';
import { mazeAggregator } from './aggregator.ts';
import { computeMetrics, summaryShape, type RunOutcome } from './aggregate.ts';

const run = (task_id: string, pass: boolean, hit: boolean, rc = 0): RunOutcome => ({
  task_id,
  complexity: 'c1',
  mode: 'P1',
  pass,
  hit,
  rc,
  recovery: 'none',
  failure_reason: pass ? null : 'x',
});

describe('Maze metrics with --trials', () => {
  // Three tasks × 2 trials. Per task: A passes 2/2 (both hit), B 1/2 (one hit, it failed), C 0/2 (no hit).
  const runs = [
    run('A', true, true, 0.5),
    run('A', true, true, 0),
    run('B', true, false),
    run('B', false, true, 1),
    run('C', false, false),
    run('C', false, false),
  ];
  const m = computeMetrics(runs, { seed: 1, resamples: 500 }).by_mode.P1!;

  it('the unit is the task: n counts tasks, TSR and RC are means of per-task means, PRR pools hits', () => {
    expect(m.runs).toBe(6);
    expect(m.tsr.n).toBe(3);
    expect(m.tsr.value).toBeCloseTo((1 + 0.5 + 0) / 3, 12);
    expect(m.rc.value).toBeCloseTo((0.25 + 0.5 + 0) / 3, 12);
    // hits: A 2 (both pass), B 1 (fails) → 2 / 3 over the 2 tasks with a hit
    expect(m.prr.n).toBe(2);
    expect(m.prr.value).toBeCloseTo(2 / 3, 12);
    expect(m.outcomes.task_ids).toEqual(['A', 'B', 'C']);
  });

  it('reports pass@K and pass^K per mode, as the other suites do with trials', () => {
    expect(m.trials?.k).toBe(2);
    // pass@2: a task passes at least once in 2 → A, B; pass^2: every trial passes → A.
    expect(m.trials!.pass_at_k.value).toBeCloseTo(2 / 3, 12);
    expect(m.trials!.pass_hat_k.value).toBeCloseTo(1 / 3, 12);
    const shape = summaryShape(computeMetrics(runs, { seed: 1, resamples: 200 })) as unknown as {
      metrics: Record<string, Record<string, { value: number }>>;
    };
    expect(shape.metrics['pass@2']!.P1!.value).toBeCloseTo(2 / 3, 12);
    expect(shape.metrics['pass^2']!.P1!.value).toBeCloseTo(1 / 3, 12);
  });

  it('one trial per task keeps the per-run metrics', () => {
    const one = computeMetrics([run('A', true, true), run('B', false, true), run('C', true, false)], {
      seed: 1,
      resamples: 200,
    }).by_mode.P1!;
    expect(one.tsr.n).toBe(3);
    expect(one.prr.value).toBeCloseTo(1 / 2, 12);
    expect(one.trials).toBeUndefined();
  });

  it("report --compare's outcomes are per task, averaged over trials", () => {
    const metas = runs.map((r, i) => ({
      ...r,
      suite: 'maze' as const,
      id: `${r.task_id}:P1`,
      trial: i % 2,
      error: null,
      reason: null,
      c_act: 0,
      c_oracle: 0,
      turns: 1,
      tool_calls: 1,
    }));
    const o = mazeAggregator.outcomes!(metas);
    expect([...o['tsr.P1']!]).toEqual([
      ['A', 1],
      ['B', 0.5],
      ['C', 0],
    ]);
  });
});
