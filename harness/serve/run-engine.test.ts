// A gguf: run's configuration, header, notice and fingerprint (pure), and the run's engine start-up: a missing
// node-llama-cpp is one line saying how to get it; with --base-url the facts come from the server's /v1/models.
import { describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { reproHeader } from '../core/repro.ts';
import type { Engine, EngineInfo } from '../engine/types.ts';
import { blobRunOf, runFromBlobs } from '../kit/blob-run.ts';
import { planRun } from '../kit/plan.ts';
import { runFingerprint } from '../kit/fingerprint.ts';
import { headerBlock } from '../report/markdown.ts';
import { buildSummary, noticeTag } from '../report/summary.ts';
import { toolhopSuite } from '../toolhop/suite.ts';
import { prepareRunEngine } from './run-engine.ts';
import { startServe } from './server.ts';

const FACTS = {
  engine: 'llama.cpp via node-llama-cpp 3.21.1',
  llama_cpp_build: 'b1',
  file: '/m/q8.gguf',
  sha256: 'c'.repeat(64),
  tensor_type: 'Q8_0',
  chat_template_sha256: 'd'.repeat(64),
  test_model: true,
};

/** The run configuration of a gguf: run once its engine is up: the launcher sets the facts on it. */
const withFacts = (env: Record<string, string>, facts: typeof FACTS | undefined) => {
  const run = readConfig(env);
  if (run.engine && facts) run.engine.facts = facts;
  return run;
};

const summaryOf = (env: Record<string, string>, facts?: typeof FACTS) => {
  const run = withFacts(env, facts);
  const header = reproHeader(run, { startedAt: new Date(0), endedAt: new Date(0) });
  return buildSummary({
    suite: 'x',
    header,
    config: {},
    counts: {},
    metrics: {},
    breakdowns: {},
    errors: [],
    gate: null,
  });
};

describe('gguf: models in the run configuration and its reports', () => {
  it('a gguf: model needs no endpoint and is not the simulator; gguf: alone is refused', () => {
    const run = readConfig({ TOOLGAUGE_MODEL: 'gguf:/m/q8.gguf', TOOLGAUGE_ENGINE_THREADS: '2' });
    expect(run.usesSimulator).toBe(false);
    expect(run.baseUrl).toBeUndefined();
    expect(run.engine).toEqual({ threads: 2, parallel: undefined, contextSize: undefined, facts: undefined });
    expect(() => readConfig({ TOOLGAUGE_MODEL: 'gguf:' })).toThrow(/names no file/);
    // the facts come from the engine the launcher started, never from the environment
    expect(
      readConfig({ TOOLGAUGE_MODEL: 'gguf:/m.gguf', TOOLGAUGE_ENGINE_INFO: JSON.stringify(FACTS) }).engine?.facts,
    ).toBeUndefined();
  });

  it("the header names the engine and the file; a test model's summary carries its notice; another's none", () => {
    const env = { TOOLGAUGE_MODEL: 'gguf:/m/q8.gguf', OPENAI_BASE_URL: 'http://127.0.0.1:4000/v1' };
    const s = summaryOf(env, FACTS);
    expect(s.header.engine).toEqual(FACTS);
    expect(s.header.simulated).toBe(false);
    expect(s.notice).toMatch(/^TEST MODEL RUN: .*not from a language model/);
    const md = headerBlock('t', s);
    expect(md).toContain('> **TEST MODEL RUN');
    expect(md).toMatch(
      /\| engine \| llama\.cpp via node-llama-cpp 3\.21\.1 \(llama\.cpp b1\); \/m\/q8\.gguf Q8_0; file sha256 cccccccccccccccc…; chat template sha256 dddddddddddddddd…; TOOLGAUGE TEST MODEL/,
    );
    expect(noticeTag(s)).toBe('  [TEST MODEL — random weights, not a model result]');
    expect(noticeTag(summaryOf({ TOOLGAUGE_MODEL: 'sim:oracle' }))).toBe('  [SIMULATOR — not a model result]');
    const real = summaryOf(env, { ...FACTS, test_model: false });
    expect(real.notice).toBeNull();
    expect(noticeTag(real)).toBe('');
    expect(headerBlock('t', real)).toContain('not a test model');
  });

  it('the fingerprint ignores the port the engine listened on and names the file: another file is another run', () => {
    const fp = (url: string, sha: string) => {
      const run = withFacts({ TOOLGAUGE_MODEL: 'gguf:/m/q8.gguf', OPENAI_BASE_URL: url }, { ...FACTS, sha256: sha });
      return runFingerprint(toolhopSuite, run, toolhopSuite.settings({}, run), null);
    };
    const a = fp('http://127.0.0.1:4000/v1', 'c'.repeat(64));
    expect(a).toMatchObject({
      endpoint: 'local engine',
      'engine.file_sha256': 'c'.repeat(64),
      'engine.tensor_type': 'Q8_0',
      'engine.chat_template_sha256': 'd'.repeat(64),
    });
    expect(fp('http://127.0.0.1:5123/v1', 'c'.repeat(64))).toEqual(a);
    expect(fp('http://127.0.0.1:4000/v1', 'e'.repeat(64))).not.toEqual(a);
  });
});

describe("a gguf: run's shards", () => {
  it('merge although each shard served the file on its own port; another file is another run', () => {
    const shard = (port: number, sha: string) => {
      const run = withFacts(
        { TOOLGAUGE_MODEL: 'gguf:/m/q8.gguf', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` },
        { ...FACTS, sha256: sha },
      );
      return { suite: 'toolhop', dataset: 'x', run: blobRunOf(run, {}) };
    };
    const kc = planRun({ TOOLGAUGE_MODEL: 'sim:oracle' }, []);
    const merged = runFromBlobs(kc, [shard(4000, 'c'.repeat(64)), shard(5000, 'c'.repeat(64))]);
    expect(merged.run.engine?.facts).toMatchObject({ sha256: 'c'.repeat(64) });
    expect(() => runFromBlobs(kc, [shard(4000, 'c'.repeat(64)), shard(5000, 'e'.repeat(64))])).toThrow(
      /different runs \(baseUrl/,
    );
  });
});

describe("a gguf: run's engine", () => {
  it('without node-llama-cpp: one line naming the command and how to install it, before anything runs', async () => {
    const run = readConfig({ TOOLGAUGE_MODEL: 'gguf:/m/none.gguf' });
    const err = await prepareRunEngine(run, 'toolgauge probe', { findEngine: () => ({ wrongVersions: [] }) }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(
      /^toolgauge probe: --model gguf:\/m\/none\.gguf: node-llama-cpp 3\.21\.1 is not installed.*npm run setup:engine/,
    );
    expect((err as Error).message).not.toContain('\n');
  });

  it("with --base-url: nothing starts, the facts come from the server's /v1/models meta", async () => {
    const info: EngineInfo = {
      engine: FACTS.engine,
      llamaCppBuild: 'b1',
      file: FACTS.file,
      sha256: FACTS.sha256,
      bytes: 1,
      architecture: 'llama',
      tensorType: 'Q8_0',
      vocabSize: 10,
      contextSize: 64,
      sequences: 1,
      threads: 1,
      chatTemplateSha256: FACTS.chat_template_sha256,
      testModel: true,
      loadMs: 0,
    };
    const engine = { info: async () => info, close: async () => undefined } as unknown as Engine;
    const server = await startServe({ engine, alias: 'gguf:/m/q8.gguf' });
    try {
      const e = await prepareRunEngine(
        readConfig({ TOOLGAUGE_MODEL: 'gguf:/m/q8.gguf', OPENAI_BASE_URL: server.url }),
        'toolgauge maze',
      );
      expect(e?.url).toBe(server.url);
      expect(e?.facts).toMatchObject(FACTS);
      expect(await prepareRunEngine(readConfig({ TOOLGAUGE_MODEL: 'sim:oracle' }), 'toolgauge maze')).toBeNull();
    } finally {
      await server.close();
    }
  });
});
