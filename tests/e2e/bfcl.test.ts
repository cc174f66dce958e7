import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PythonBfclExecutor } from '../../harness/bfcl/executor.ts';
import { rescoreResultDir, resultLine } from '../../harness/bfcl/rescore.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { bfclSuite } from '../../harness/bfcl/suite.ts';
import { readJson, readLines, tempDir, toolgauge } from '../helpers/cli.ts';

// BFCL end to end through the real CLI: the simulator over HTTP, BFCL's loop, the checker, the multi-turn executor
// (CPython running the fixtures' toy API, state- and response-checked against the ground-truth run), the kit's
// files and report. Rescoring the BFCL-format result files the run wrote gives the same verdicts.
const DATA = fromRoot('fixtures', 'bfcl', 'data');
const CLASSES = fromRoot('fixtures', 'bfcl', 'classes');
type Est = { value: number; n: number };
type Summary = {
  suite: string;
  notice: string | null;
  metrics: { accuracy: Record<string, Est>; overall: Est };
  counts: Record<string, number>;
  config: Record<string, unknown>;
};
const sorted = (xs: ReadonlyArray<object>) => xs.map((x) => JSON.stringify(x)).sort();

// The two runs are separate processes: run them side by side.
describe.concurrent('toolgauge bfcl on the simulator', () => {
  it('FC mode: single-turn and multi-turn categories pass on sim:oracle, and rescoring the written result files gives the same verdicts', async () => {
    const out = tempDir('bfcl-fc');
    const categories = 'simple_python,parallel,multi_turn_base,multi_turn_miss_param';
    const r = await toolgauge([
      'bfcl',
      '--model',
      'sim:oracle',
      '--data',
      DATA,
      '--bfcl-source',
      CLASSES,
      '--category',
      categories,
      '--out-dir',
      out,
      '--gate',
      'accuracy.multi_turn_base>=1',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s = readJson<Summary>(join(out, 'summary.json'));
    expect(s.suite).toBe('bfcl');
    expect(s.notice).toMatch(/SIMULATOR/);
    expect(Object.keys(s.metrics.accuracy).sort()).toEqual(categories.split(',').sort());
    for (const [c, e] of Object.entries(s.metrics.accuracy)) expect(e.value, c).toBe(1);
    const results = readLines(join(out, 'results.jsonl'));
    expect(results.map((x) => Object.keys(x).sort().join(','))).toEqual(
      results.map(() => 'category,error_type,id,valid'),
    );
    expect(results.map((x) => x.id)).toEqual([
      'simple_python_0',
      'simple_python_1',
      'simple_python_2',
      'parallel_0',
      'multi_turn_base_0',
      'multi_turn_miss_param_0',
    ]);
    // The multi-turn case ran in the executor: per turn, the model's and the ground truth's execution results.
    const meta = readLines<{ id: string; trace: string }>(join(out, 'instances.jsonl')).find(
      (m) => m.id === 'multi_turn_base_0',
    )!;
    const trace = readJson<{
      bfcl: { valid: boolean; multi_turn: { execution: Array<{ model: string[][]; ground_truth: string[] }> } };
    }>(join(out, meta.trace));
    expect(trace.bfcl.valid).toBe(true);
    expect(trace.bfcl.multi_turn.execution.length).toBeGreaterThan(1);
    expect(trace.bfcl.multi_turn.execution[0]!.ground_truth.length).toBeGreaterThan(0);
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report).toContain('## BFCL verdict vs toolgauge verdict');
    expect(report).toContain('## Answer keys BFCL itself cannot pass');
    expect(r.stdout).toMatch(/toolgauge · BFCL · sim:oracle · fc/);

    // What `toolgauge bfcl rescore --result-dir OUT/result --format fc` computes (in process: one CLI start less).
    const executor = new PythonBfclExecutor({ sourceDir: CLASSES });
    try {
      const again = await rescoreResultDir(join(out, 'result'), {
        format: 'fc',
        dataDir: DATA,
        executor,
        modelName: 'sim:oracle',
      });
      expect(sorted(again.records.map(resultLine))).toEqual(sorted(results));
    } finally {
      await executor.dispose();
    }
  });

  it("prompt mode: BFCL's system prompt and [func(a=1)] text, decoded as BFCL decodes it", async () => {
    const out = tempDir('bfcl-prompt');
    // In process (the CLI is exercised by the FC case): the kit's sessions and finalize, real HTTP to the simulator.
    const run = await runSuite(bfclSuite, {
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_BFCL_MODE: 'prompt',
      TOOLGAUGE_BFCL_DATA: DATA,
      TOOLGAUGE_BFCL_CATEGORY: 'simple_python,irrelevance',
      TOOLGAUGE_OUT_DIR: out,
    });
    expect(run.finalized.harnessErrors).toBe(0);
    const s = readJson<Summary>(join(out, 'summary.json'));
    expect(s.config.mode).toBe('prompt');
    expect(s.metrics.accuracy.simple_python).toMatchObject({ value: 1, n: 3 });
    expect(s.metrics.accuracy.irrelevance).toMatchObject({ value: 1, n: 1 });
    // The outputs BFCL would have stored: text, with the dotted function name as written.
    const written = readLines<{ id: string; result: unknown }>(
      join(out, 'result', 'BFCL_v4_simple_python_result.json'),
    );
    expect(written.find((x) => x.id === 'simple_python_0')!.result).toBe("[weather.get(city='Paris')]");
  });
});
