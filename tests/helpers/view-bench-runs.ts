import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runs of a describeEval-shaped suite written straight to disk (summary.json, the journal, one trace per case with a
 * short tool conversation), any size: for the viewer's bench (bench/view.ts) and its paged-mode tests. Case i is
 * `case-i`, tagged by operation (`op=add` on odd i) and size; its answer is wrong when `fails(i)`, and every 1000th
 * case is a harness error.
 */

const header = {
  toolgauge_version: 'bench',
  git_commit: null,
  git_dirty: null,
  node: process.version,
  os: 'bench',
  cpu: 'bench',
  cpus: 1,
  ram_gib: 1,
  endpoint: 'built-in simulator',
  model: 'sim:bench',
  simulated: true,
  generation: { temperature: 0 },
  dataset: { file: 'bench', sha256: 'b'.repeat(64) },
  template_sha256: null,
  injected_date: '2026-01-01',
  seed: 0,
  trials: 1,
  started_at: 't0',
  ended_at: 't1',
};

/** A run whose case i fails when `fails(i)`: tags by operation and size, a 5-message conversation per case. */
export function writeRun(dir: string, model: string, N: number, fails: (i: number) => boolean): void {
  mkdirSync(join(dir, 'traces'), { recursive: true });
  const lines: string[] = [];
  let passed = 0;
  for (let i = 0; i < N; i++) {
    const [a, b] = [i % 97, (i * 7) % 89];
    const op = i % 2 ? 'add' : 'mul';
    const want = op === 'add' ? a + b : a * b;
    const pass = !fails(i);
    passed += Number(pass);
    const answer = String(pass ? want : want + 1);
    const trace = `traces/case-${i}.json`;
    lines.push(
      JSON.stringify({
        suite: 'bench',
        id: `case-${i}`,
        trial: 0,
        error: i % 1000 === 999 ? 'endpoint down after retries' : null,
        pass,
        reason: pass ? null : `exact: expected '${want}', answered '${answer}'`,
        trace,
        order: i,
        scores: { exact: pass ? 1 : 0 },
        tags: { op, size: a > 50 ? 'big' : 'small' },
      }),
    );
    const q = `What is ${a} ${op === 'add' ? 'plus' : 'times'} ${b}?`;
    writeFileSync(
      join(dir, trace),
      JSON.stringify({
        input: q,
        expected: String(want),
        scores: { exact: pass ? 1 : 0 },
        output: {
          answer,
          messages: [
            { role: 'system', content: 'Use the tools for arithmetic. End with <answer>…</answer>.' },
            { role: 'user', content: q },
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c0', type: 'function', function: { name: op, arguments: JSON.stringify({ a, b }) } }],
            },
            { role: 'tool', tool_call_id: 'c0', content: String(want) },
            { role: 'assistant', content: `The result is <answer>${answer}</answer>` },
          ],
          toolCalls: [{ name: op, argumentsJson: JSON.stringify({ a, b }), result: String(want), error: null }],
          usage: { prompt_tokens: 60, completion_tokens: 20, total_tokens: 80 },
          turns: 2,
          modelCalls: [
            {
              turn: 0,
              purpose: 'turn',
              latencyMs: 40,
              attempts: 1,
              retried: [],
              cached: false,
              finishReason: 'tool_calls',
              usage: { prompt_tokens: 30, completion_tokens: 12 },
            },
            {
              turn: 1,
              purpose: 'turn',
              latencyMs: 30,
              attempts: 1,
              retried: [],
              cached: false,
              finishReason: 'stop',
              usage: { prompt_tokens: 30, completion_tokens: 8 },
            },
          ],
        },
      }),
    );
  }
  const est = (v: number) => ({
    value: v,
    lo: v,
    hi: v,
    n: N,
    denominator: 'instances',
    method: 'wilson',
    level: 0.95,
  });
  const summary = {
    schema: 'toolgauge.summary/1',
    suite: 'bench',
    notice: 'SIMULATOR RUN (benchmark data)',
    header: { ...header, model },
    config: { scorers: ['exact'] },
    counts: { instances: N },
    metrics: { pass_rate: est(passed / N), exact: est(passed / N) },
    breakdowns: {},
    errors: [],
    extra: {},
    gate: null,
  };
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
  writeFileSync(join(dir, 'instances.jsonl'), lines.join('\n') + '\n');
}
