import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataError } from '../../core/errors.ts';
import { readGgufHeader, tensorTypeOf } from '../../engine/gguf/reader.ts';
import { planRun, settingsOf } from '../../kit/plan.ts';
import { parseLineup } from '../lineup/lineup.ts';
import { checkGgufQuant, ensureTestModel } from '../../probe/run/gguf-lineup.ts';
import { probeSuite } from '../../probe/suite.ts';
import { bundledRegistry, fromRegistry, parseRegistry, testModelDirOf, testModelPath } from './registry.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the bundled model registry', () => {
  it('parses, and every entry names a repository or a test model', () => {
    const r = bundledRegistry();
    expect(Object.keys(r.models).length).toBeGreaterThanOrEqual(8);
    for (const [key, e] of Object.entries(r.models)) expect(Boolean(e.repo) !== Boolean(e.test_model), key).toBe(true);
    expect(r.models['qwen2.5-7b-instruct']).toMatchObject({
      repo: 'Qwen/Qwen2.5-7B-Instruct',
      family: 'hermes',
      quantization: 'BF16',
    });
  });
  it('refuses a bad registry file naming the key and field', () => {
    expect(() =>
      parseRegistry('models:\n  m: {repo: a/b, chat_template: repo, quantization: BF16, family: nope}\n', 'r.yaml'),
    ).toThrow(/r\.yaml: row models\.m: field models\.m\.family/);
    expect(() => parseRegistry('models:\n  m: {chat_template: repo, quantization: BF16}\n', 'r.yaml')).toThrow(
      /a repo or a test_model, exactly one/,
    );
    expect(() =>
      parseRegistry('models:\n  m: {repo: a/b, chat_template: repo, quantization: BF16, colour: red}\n', 'r.yaml'),
    ).toThrow(DataError);
  });
  it('a key becomes the repository as model; a test model becomes its file at the type quant asks', () => {
    const r = bundledRegistry();
    expect(fromRegistry(r, 'llama-3.1-8b-instruct', undefined, dir)).toMatchObject({
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      family: 'llama_json',
      quantization: 'BF16',
      repo: 'meta-llama/Llama-3.1-8B-Instruct',
      testModel: undefined,
    });
    const t = fromRegistry(r, 'test-hermes', 'q8_0', dir);
    expect(t.model).toBe(`gguf:${join(dir, 'test-hermes-seed0-Q8_0.gguf')}`);
    expect(t.quantization).toBe('Q8_0');
    expect(() => fromRegistry(r, 'test-hermes', 'Q4_K_M', dir)).toThrow(
      "quant Q4_K_M: the test model 'test-hermes' is written as F32, F16, Q8_0",
    );
    expect(() => fromRegistry(r, 'qwen9', undefined, dir)).toThrow(
      /no model 'qwen9' in the registry \(known: .*qwen2\.5-7b-instruct/,
    );
  });
  it('test models go to TOOLGAUGE_TEST_MODEL_DIR, else the user cache', () => {
    expect(testModelDirOf({ TOOLGAUGE_TEST_MODEL_DIR: '/x' })).toBe('/x');
    expect(testModelDirOf({ XDG_CACHE_HOME: '/c' })).toBe('/c/toolgauge/test-models');
  });
});

describe('lineups naming registry keys', () => {
  const o = { testModelDir: dir };
  it('fills model, label, family, quantization, repo and revision from the key; the entry’s own fields win', () => {
    const l = parseLineup(
      'models:\n  - registry: qwen2.5-7b-instruct\n    base_url: http://127.0.0.1:8000/v1\n  - {registry: llama-3.1-8b-instruct, label: llama, model: served-name, revision: abc123, family: llama_pythonic}\n',
      'l.yaml',
      o,
    );
    expect(l.models[0]).toEqual({
      label: 'qwen2.5-7b-instruct',
      model: 'Qwen/Qwen2.5-7B-Instruct',
      base_url: 'http://127.0.0.1:8000/v1',
      family: 'hermes',
      quantization: 'BF16',
      repo: 'Qwen/Qwen2.5-7B-Instruct',
      registry: 'qwen2.5-7b-instruct',
    });
    expect(l.models[1]).toMatchObject({
      label: 'llama',
      model: 'served-name',
      revision: 'abc123',
      family: 'llama_pythonic',
      repo: 'meta-llama/Llama-3.1-8B-Instruct',
    });
  });
  it('refuses an entry without label/model and registry, and an unknown key, naming file, entry and field', () => {
    expect(() => parseLineup('models: [{model: m}]', 'l.yaml', o)).toThrow(
      'l.yaml: row models[0]: field models[0].label: required (or name a registry key with registry:)',
    );
    expect(() => parseLineup('models: [{label: a, model: m}, {registry: nope}]', 'l.yaml', o)).toThrow(
      /l\.yaml: row models\[1\]: field models\[1\]\.registry: no model 'nope'/,
    );
    expect(() => parseLineup('models: [{registry: test-hermes, quant: Q4_K_M}]', 'l.yaml', o)).toThrow(
      /field models\[0\]\.quant: quant Q4_K_M/,
    );
    expect(() => parseLineup('models: [{registry: qwen3-0.6b}, {registry: qwen3-0.6b}]', 'l.yaml', o)).toThrow(
      /duplicate label 'qwen3-0.6b'/,
    );
  });
  it('quant on a test model picks (and writes) the file of that type; the local engine runs what the entry asks', () => {
    const l = parseLineup(
      'models:\n  - {registry: test-hermes, label: f32}\n  - {registry: test-hermes, label: q8, quant: Q8_0, quantization_of: f32}\n',
      'l.yaml',
      o,
    );
    const q8 = l.models[1]!;
    expect(q8.model).toBe(`gguf:${testModelPath(dir, 'hermes', 0, 'Q8_0')}`);
    expect(q8.test_model).toEqual({
      path: testModelPath(dir, 'hermes', 0, 'Q8_0'),
      template: 'hermes',
      seed: 0,
      type: 'Q8_0',
    });
    ensureTestModel(q8.test_model!);
    expect(tensorTypeOf(readGgufHeader(q8.test_model!.path))).toBe('Q8_0');
    expect(() => checkGgufQuant({ label: 'q8', model: q8.model, quant: 'Q8_0' })).not.toThrow();
    expect(() => checkGgufQuant({ label: 'q8', model: q8.model, quant: 'F16' })).toThrow(
      /entry 'q8' asks quant F16, but the file's tensors are Q8_0/,
    );
  });
  it('a probe run reads the lineup, writes the test model and records repo and revision in its header', () => {
    const testDir = join(dir, 'models');
    const lineup = join(dir, 'lineup.yaml');
    writeFileSync(
      lineup,
      'models:\n  - {registry: test-llama3, quant: F16}\n  - {registry: qwen3-0.6b, revision: 0123abc, base_url: "http://127.0.0.1:9/v1"}\n',
    );
    const kc = planRun(
      { TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_PROBE_LINEUP: lineup, TOOLGAUGE_TEST_MODEL_DIR: testDir },
      [probeSuite],
    );
    const s = settingsOf(kc, probeSuite);
    expect(existsSync(testModelPath(testDir, 'llama3', 0, 'F16'))).toBe(true);
    expect(s.models[0]).toMatchObject({
      label: 'test-llama3',
      quant: 'F16',
      quantization: 'F16',
      family: 'llama_json',
    });
    const g = probeSuite.generationFacts!(kc.run, s) as { model_sources?: Record<string, unknown> };
    expect(g.model_sources).toEqual({
      'test-llama3': { registry: 'test-llama3', repo: null, revision: null, endpoint_revision: null },
      'qwen3-0.6b': { registry: 'qwen3-0.6b', repo: 'Qwen/Qwen3-0.6B', revision: '0123abc', endpoint_revision: null },
    });
  });
  it('a plain run naming a registry repository records the registry entry', () => {
    const kc = planRun({ TOOLGAUGE_MODEL: 'Qwen/Qwen3-0.6B', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, [probeSuite]);
    const g = probeSuite.generationFacts!(kc.run, settingsOf(kc, probeSuite)) as {
      model_sources?: Record<string, unknown>;
    };
    expect(g.model_sources).toEqual({
      'Qwen_Qwen3-0.6B': { registry: 'qwen3-0.6b', repo: 'Qwen/Qwen3-0.6B', revision: null, endpoint_revision: null },
    });
    const other = planRun({ TOOLGAUGE_MODEL: 'some-model', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, [probeSuite]);
    expect(
      (probeSuite.generationFacts!(other.run, settingsOf(other, probeSuite)) as Record<string, unknown>).model_sources,
    ).toBeUndefined();
  });
});

describe('docs/models.md', () => {
  it('its lineup example parses, registry keys resolved', async () => {
    const { readFileSync } = await import('node:fs');
    const { fromRoot } = await import('../../core/paths.ts');
    const text = /```yaml\n(models:\n {2}- registry:[\s\S]*?)```/.exec(
      readFileSync(fromRoot('docs', 'models.md'), 'utf8'),
    )?.[1];
    expect(text).toBeDefined();
    const l = parseLineup(text!, 'models.md', { testModelDir: dir });
    expect(l.models.map((m) => [m.label, m.model.startsWith('gguf:') ? 'gguf' : m.model])).toEqual([
      ['qwen2.5-7b-instruct', 'Qwen/Qwen2.5-7B-Instruct'],
      ['llama', 'llama31'],
      ['test-hermes', 'gguf'],
      ['test-hermes-q8', 'gguf'],
    ]);
  });
});
