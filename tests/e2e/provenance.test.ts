// The header's model_provenance: the model's identity from each source a run has — the endpoint's models entry
// (here the simulator, over HTTP in process), `--model-revision`, a `registry:KEY` model, a GGUF file's metadata.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ReproHeader } from '../../harness/core/repro.ts';
import { buildTestModel } from '../../harness/engine/gguf/test-model.ts';
import { readGgufHeaderFromBytes } from '../../harness/engine/gguf/reader.ts';
import { planRun, settingsOf } from '../../harness/kit/plan.ts';
import { endpointEntry, ggufGeneral } from '../../harness/launch/provenance.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { startSimServer } from '../../harness/sim/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-provenance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ONE_CASE = { TOOLGAUGE_PROBE_ONLY: 'c1_weather_dev_000' };

const headerOf = (out: string) =>
  ReproHeader.parse((JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { header: unknown }).header);

describe('model provenance in the run header', () => {
  it("the simulator's models entry and --model-revision (built-in simulator, in process)", async () => {
    const out = join(dir, 'sim');
    await runSuite(probeSuite, {
      ...ONE_CASE,
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_MODEL_REVISION: 'rev-from-the-user',
      TOOLGAUGE_OUT_DIR: out,
    });
    const p = headerOf(out).model_provenance!;
    expect(p.revision).toBe('rev-from-the-user');
    expect(p.endpoint).toEqual({
      matched: true,
      entry: { id: 'sim:oracle', object: 'model', owned_by: 'toolgauge-simulator' },
    });
    expect(p.registry).toBeUndefined();
  });

  it('--model registry:KEY on a suite run: the registry names the model, the header names the entry and the endpoint', async () => {
    const env = { ...ONE_CASE, TOOLGAUGE_MODEL: 'registry:qwen3-0.6b', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
    const kc = planRun(env, [probeSuite]);
    expect(kc.run.model).toBe('Qwen/Qwen3-0.6B');
    const sim = await startSimServer({
      responders: { probe: probeSuite.responder!(kc.run, settingsOf(kc, probeSuite)) },
      defaultPolicy: 'sim:oracle',
    });
    try {
      const out = join(dir, 'registry');
      const run = await runSuite(probeSuite, { ...env, OPENAI_BASE_URL: sim.url, TOOLGAUGE_OUT_DIR: out });
      expect(run.finalized.harnessErrors).toBe(0);
      const h = headerOf(out);
      expect(h.model).toBe('Qwen/Qwen3-0.6B');
      expect(h.model_provenance!.registry).toEqual({
        key: 'qwen3-0.6b',
        model: 'Qwen/Qwen3-0.6B',
        repo: 'Qwen/Qwen3-0.6B',
        source: 'https://huggingface.co/Qwen/Qwen3-0.6B',
        revision: null,
        quantization: 'BF16',
        revision_note: expect.stringMatching(/cannot be checked offline/),
      });
      // the simulator answers under any name and lists one model: recorded, marked as not the name asked for
      expect(h.model_provenance!.endpoint).toMatchObject({
        matched: false,
        entry: { owned_by: 'toolgauge-simulator' },
      });
    } finally {
      await sim.close();
    }
  });

  it('an unknown registry key is one line naming the flag and the known keys', () => {
    expect(() => planRun({ TOOLGAUGE_MODEL: 'registry:nope' }, [probeSuite])).toThrow(
      /^--model registry:nope: no model 'nope' in the registry \(known: .*qwen3-0\.6b/,
    );
  });

  it("a GGUF file's general.* metadata and its quantization by name (a test model, read from memory)", () => {
    const header = readGgufHeaderFromBytes(buildTestModel({ type: 'Q8_0', template: 'hermes', seed: 0 }));
    const g = ggufGeneral(header);
    expect(g['general.architecture']).toBe('llama');
    expect(typeof g['general.name']).toBe('string');
    expect(g['general.file_type']).toBe(7); // LLAMA_FTYPE_MOSTLY_Q8_0
    expect(g.tensor_type).toBe('Q8_0');
    expect('general.alignment' in g).toBe(false);
  });

  it('the models entry: by name, else the only one listed, else none; every field kept', () => {
    const e = { id: 'org/m', owned_by: 'vllm', created: 1700000000, root: '/models/m', max_model_len: 8192 };
    expect(endpointEntry('org/m', [{ id: 'other' }, e])).toEqual({ matched: true, entry: e });
    expect(endpointEntry('x', [e])).toEqual({ matched: false, entry: e });
    expect(endpointEntry('x', [e, { id: 'other' }])).toBeNull();
  });
});
