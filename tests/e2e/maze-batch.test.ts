import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compareBatch } from '../../harness/maze/batch-compare.ts';
import { inProcess, readJson, readLines, tempDir, type CliResult } from '../helpers/cli.ts';

// A Maze batch over a lineup, in process (one CLI run for the file; its three models run at once, --parallel-models
// defaulting to the run's concurrency), real HTTP to the simulator's Messages-API
// front (--agent-type anthropic): two models that complete and one whose endpoint is down. (A model whose run ends in harness errors, and a retry that succeeds:
// harness/maze/batch.test.ts, without Vitest runs.) Simulator runs: not a model's result.
type Model = { label: string; status: string; attempts: number; dir: string; reason?: string; runs?: number };
type Pair = {
  a: string;
  b: string;
  mode: string;
  tsr: { n: number; a: number; b: number; diff: number; lo: number; hi: number; p_holm: number };
  prr: { n: number; diff: number };
};
type Batch = {
  models: Model[];
  comparison: { pairs: Pair[]; seed: number; resamples: number; level: number };
  notice?: string;
};

describe('toolgauge maze --lineup (a batch of models)', () => {
  let out: string;
  let r: CliResult;
  let batch: Batch;
  beforeAll(async () => {
    out = tempDir('maze-batch');
    const lineup = join(out, 'lineup.yaml');
    writeFileSync(
      lineup,
      [
        'models:',
        '  - { label: oracle, model: "sim:oracle" }',
        '  - { label: naive, model: "sim:naive" }',
        '  - { label: down, model: some-model, base_url: "http://127.0.0.1:9/v1" }',
        '',
      ].join('\n'),
    );
    r = await inProcess(
      [
        'maze',
        '--lineup',
        lineup,
        '--task-id',
        'C1_task_001,C2_task_001',
        '--modes',
        'P2',
        '--trials',
        '2',
        '--retries',
        '0',
        '--agent-type',
        'anthropic',
        '--out-dir',
        out,
      ],
      {},
    );
    batch = readJson<Batch>(join(out, 'reports', 'maze_batch_fc.json'));
  }, 240_000);

  it('runs each model into its own results/<model>/fc folder, with --trials 2 files per trial', () => {
    for (const m of ['oracle', 'naive']) {
      const dir = join(out, m, 'fc');
      expect(readLines(join(dir, 'instances.jsonl'))).toHaveLength(2 * 2);
      expect(existsSync(join(dir, 'c1', 'inferences', 'C1_task_001_P2_inference.json'))).toBe(true);
      expect(existsSync(join(dir, 'c1', 'inferences', 'C1_task_001_P2_trial1_inference.json'))).toBe(true);
      const s = readJson<{
        metrics: Record<string, unknown>;
        config: { agent_type: string };
        header: { generation: Record<string, unknown> };
        extra: { tokens: { all: { runs_with_usage: number; total_tokens: number } } };
      }>(join(dir, 'summary.json'));
      expect(Object.keys(s.metrics)).toEqual(expect.arrayContaining(['pass@2', 'pass^2']));
      expect(s.config.agent_type).toBe('anthropic');
      expect(s.header.generation).toMatchObject({ seed: null, max_tokens: 4096, top_p: 1 });
      expect(s.extra.tokens.all.runs_with_usage).toBe(4);
      expect(s.extra.tokens.all.total_tokens).toBeGreaterThan(0);
    }
  });

  it('a model whose endpoint is down is retried once, then reported as FAILED and left out of every comparison', () => {
    const by = Object.fromEntries(batch.models.map((m) => [m.label, m]));
    expect(by.oracle).toMatchObject({ status: 'complete', attempts: 1, runs: 4 });
    expect(by.naive).toMatchObject({ status: 'complete', attempts: 1 });
    expect(by.down).toMatchObject({ status: 'failed', attempts: 2 });
    expect(by.down!.reason).toMatch(/127\.0\.0\.1:9.*not usable/);
    expect(batch.comparison.pairs.every((p) => ![p.a, p.b].includes('down'))).toBe(true);
    expect(r.code, r.stderr).toBe(1);
  });

  it('compares the complete models per mode over the same task × mode runs, from their journals', () => {
    expect(batch.comparison.pairs.map((p) => `${p.a}>${p.b}:${p.mode}`)).toEqual(['oracle>naive:P2']);
    // Independent check of the TSR means: the journals' pass fields, averaged per task then over tasks.
    for (const p of batch.comparison.pairs) {
      const mean = (label: string) => {
        const ms = readLines<{ task_id: string; mode: string; pass: boolean; error: string | null }>(
          join(out, label, 'fc', 'instances.jsonl'),
        ).filter((m) => m.mode === p.mode);
        const tasks = [...new Set(ms.map((m) => m.task_id))];
        return (
          tasks.reduce(
            (s, t) =>
              s +
              ms.filter((m) => m.task_id === t && m.pass && !m.error).length / ms.filter((m) => m.task_id === t).length,
            0,
          ) / tasks.length
        );
      };
      expect(p.tsr.n).toBe(2);
      expect(p.tsr.a).toBeCloseTo(mean('oracle'), 12);
      expect(p.tsr.b).toBeCloseTo(mean('naive'), 12);
      // PRR pooled over each model's hit runs of this mode, from its journal.
      const prr = (label: string) => {
        const ms = readLines<{ mode: string; pass: boolean; hit: boolean; error: string | null }>(
          join(out, label, 'fc', 'instances.jsonl'),
        ).filter((m) => m.mode === p.mode && m.hit);
        return ms.filter((m) => m.pass && !m.error).length / ms.length;
      };
      expect(p.prr.diff).toBeCloseTo(prr('naive') - prr('oracle'), 12);
      expect(p.tsr.lo).toBeLessThanOrEqual(p.tsr.diff);
      expect(p.tsr.hi).toBeGreaterThanOrEqual(p.tsr.diff);
    }
    expect(batch.notice).toMatch(/SIMULATOR/);
    expect(r.stdout).toContain('FAILED — not a result');
  });

  it('the comparison is a pure function of the journals (same seed, same numbers)', () => {
    const metas = (l: string) => readLines<never>(join(out, l, 'fc', 'instances.jsonl'));
    const again = compareBatch(
      [
        { label: 'oracle', metas: metas('oracle') },
        { label: 'naive', metas: metas('naive') },
      ],
      { seed: batch.comparison.seed, resamples: batch.comparison.resamples, level: batch.comparison.level },
    );
    expect(JSON.parse(JSON.stringify(again.pairs))).toEqual(batch.comparison.pairs);
  });
});
