import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findNodeLlamaCpp } from '../../harness/engine/resolve.ts';
import { buildTestModel } from '../../harness/engine/gguf/test-model.ts';
import type { ComparisonJson, QuantDamageJson } from '../../harness/probe/arms-report.ts';
import type { ProbeRecord } from '../../harness/probe/run/types.ts';
import { SummarySchema } from '../../harness/report/summary.ts';
import { readJson, readLines, tempDir, toolgauge } from '../helpers/cli.ts';

// The probe's model-side axes on a real engine (llama.cpp through node-llama-cpp), on toolgauge's own random test
// models: one CLI run of a lineup F32 / Q8_0 (same seed: one model, quantized) × free / required decoding on a
// handful of cases. Random weights: this checks the mechanics (a grammar forces parseable calls; quantization moves
// the next-token distributions a little), never a model's skill. The damage is measured on the engines the run
// serves the two files on (harness/serve/served-engine.test.ts: when they are reused). Full-size figures: docs/probe.md.

const ENGINE = findNodeLlamaCpp().found !== undefined;
const IDS = ['c1_weather_dev_000', 'c1_stock_dev_000', 'c2_sms_dev_000'];

describe.skipIf(!ENGINE)('probe axes on gguf: test models (needs node-llama-cpp: npm run setup:engine)', () => {
  let out = '';
  let dir = '';
  let run: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    dir = tempDir('gguf-axes');
    const f32 = join(dir, 'm-f32.gguf');
    const q8 = join(dir, 'm-q8_0.gguf');
    writeFileSync(f32, buildTestModel({ type: 'F32', template: 'hermes', seed: 3 }));
    writeFileSync(q8, buildTestModel({ type: 'Q8_0', template: 'hermes', seed: 3 }));
    out = join(dir, 'run');
    run = await toolgauge([
      'probe',
      '--model',
      `gguf:${f32},gguf:${q8}`,
      '--transport',
      'completions',
      '--decode',
      'free,required',
      '--only',
      IDS.join(','),
      '--max-tokens',
      '400',
      '--max-string-length',
      '8',
      '--out-dir',
      out,
    ]);
  }, 300_000);

  it('runs with no harness error; the header names llama.cpp and the test model', () => {
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const s = SummarySchema.parse(readJson(join(out, 'summary.json')));
    expect(s.counts.errors).toBe(0);
    expect(JSON.stringify(s.header)).toMatch(/llama\.cpp via node-llama-cpp/);
    expect(s.notice).toMatch(/TEST MODEL/);
    expect(run.stdout).toMatch(/\[TEST MODEL — random weights/);
    // each case × arm is one of Vitest's tests, its name carries the arm (the free ones fail: random weights)
    expect(run.stdout + run.stderr).toMatch(/probe › C1 › c1_stock_dev_000 › decode=free › model=gguf:\S*m-q8_0\.gguf/);
  });

  it('under the required-call grammar every output parses (strict tier); free outputs do not', () => {
    const recs = readLines<ProbeRecord>(join(out, 'cases.jsonl'));
    expect(recs).toHaveLength(IDS.length * 4);
    const parsed = (decode: string) =>
      recs.filter((r) => r.arm?.decode === decode).map((r) => r.scores!.strict.parse_ok);
    expect(parsed('required')).toEqual(Array(IDS.length * 2).fill(1));
    expect(parsed('free').filter((x) => x === 1).length).toBeLessThan(IDS.length);
    expect(
      recs.filter((r) => r.arm?.decode === 'required').every((r) => r.constraint?.mechanism === 'llamacpp_grammar'),
    ).toBe(true);
  });

  it('the F32 / Q8_0 pair passes the quantization guard and reports agreement and KL beside the paired metrics', () => {
    const s = SummarySchema.parse(readJson(join(out, 'summary.json')));
    const [pair] = s.extra.model_comparisons as ComparisonJson[];
    expect(pair!.refused).toBeUndefined();
    expect(pair!.rows.map((r) => r.metric)).toContain('parse_ok');
    const d = pair!.quant_damage as QuantDamageJson;
    expect(d.errors).toBe(0);
    expect(d.exact).toBe(true);
    expect(d.top1_agreement.n).toBe(IDS.length);
    // Q8_0 keeps most of the argmax and moves the distributions a little (not zero: it is a real quantization)
    expect(d.top1_agreement.value!).toBeGreaterThan(0.8);
    expect(d.mean_kl.value!).toBeGreaterThan(0);
    expect(d.mean_kl.value!).toBeLessThan(0.05);
    expect(d.mean_kl.lo!).toBeLessThanOrEqual(d.mean_kl.value!);
    expect(pair!.markdown).toMatch(/Quantization damage/);
  });
});
