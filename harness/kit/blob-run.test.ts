import { describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import { clearSecrets, registerSecret } from '../core/redact.ts';
import { blobRunOf, runFromBlobs } from './blob-run.ts';
import { planRun } from './plan.ts';

const endpoint = (model: string, extra: Record<string, string> = {}) =>
  readConfig({
    OPENAI_BASE_URL: 'http://user:pw@10.0.0.5:8000/v1?api_key=k1',
    TOOLGAUGE_MODEL: model,
    OPENAI_API_KEY: 'sk-secret-123',
    ...extra,
  });

describe('the run a blob records', () => {
  it('keeps the model and endpoint, never a key, URL credentials or a registered secret in the settings', () => {
    registerSecret('tok-abcdef-987');
    try {
      const b = blobRunOf(endpoint('real-model'), { data: 'x', header: 'Bearer tok-abcdef-987' });
      const text = JSON.stringify(b);
      expect(b.config.model).toBe('real-model');
      expect(b.config.usesSimulator).toBe(false);
      for (const secret of ['sk-secret-123', 'pw', 'k1', 'tok-abcdef-987']) expect(text).not.toContain(secret);
      expect(text).toContain('10.0.0.5:8000');
    } finally {
      clearSecrets();
    }
  });

  it("a merge takes the shards' run and settings, keeps its own out dir and gate, and refuses shards of different runs", () => {
    const merging = planRun({ TOOLGAUGE_OUT_DIR: '/merged', TOOLGAUGE_GATE: 'pass_rate>=0.5' }, []);
    expect(merging.run.model).toBe('sim:oracle');
    const shard = { suite: 'arith', dataset: 'abc', run: blobRunOf(endpoint('real-model'), { threshold: 1 }) };
    const kc = runFromBlobs(merging, [shard, { ...shard }]);
    expect(kc.run).toMatchObject({
      model: 'real-model',
      usesSimulator: false,
      outDir: '/merged',
      gate: 'pass_rate>=0.5',
    });
    expect(kc.suites.arith).toEqual({ ok: true, settings: { threshold: 1 } });
    expect(() =>
      runFromBlobs(merging, [shard, { ...shard, run: blobRunOf(endpoint('other-model'), { threshold: 1 }) }]),
    ).toThrow(/different runs \(model: "real-model" vs "other-model"\)/);
    expect(() =>
      runFromBlobs(merging, [
        shard,
        { ...shard, run: blobRunOf(endpoint('real-model', { TOOLGAUGE_SEED: '7' }), { threshold: 1 }) },
      ]),
    ).toThrow(/different runs \(seed: 0 vs 7\)/);
    expect(() =>
      runFromBlobs(merging, [shard, { ...shard, run: blobRunOf(endpoint('real-model'), { threshold: 0.5 }) }]),
    ).toThrow(/different runs \(arith settings/);
    expect(() => runFromBlobs(merging, [shard, { ...shard, dataset: 'def' }])).toThrow(
      /different runs \(arith dataset sha256: "abc" vs "def"\)/,
    );
    // Shards that differ only in how they ran (concurrency, timeouts) are one run.
    expect(
      runFromBlobs(merging, [
        shard,
        { ...shard, run: blobRunOf(endpoint('real-model', { TOOLGAUGE_CONCURRENCY: '16' }), { threshold: 1 }) },
      ]).run.model,
    ).toBe('real-model');
    // Blobs without a record (older ones): the merge's own configuration, unchanged.
    expect(runFromBlobs(merging, [{ suite: 'arith', dataset: null, run: undefined }])).toBe(merging);
  });
});
