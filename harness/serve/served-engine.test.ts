import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DistributionsRequest, DistributionsResult, Engine, EngineInfo } from '../engine/types.ts';
import { closeLocalEngines, localEngine, runEngineSource, type HeldEngine } from '../probe/run/quant-damage-run.ts';
import { startServe, type ServeHandle } from './server.ts';
import { servedEngineFor } from './served-engine.ts';

// A run's test worker reuses the run's `toolgauge serve` for teacher-forced distributions only when the server runs
// the same file with the same settings; a stand-in engine behind the real server makes every case cheap.

const FILE = '/models/m-f32.gguf';
const INFO: EngineInfo = {
  engine: 'stand-in',
  file: FILE,
  sha256: 'a'.repeat(64),
  bytes: 1,
  architecture: 'llama',
  tensorType: 'F32',
  vocabSize: 4,
  chatTemplate: '{{ messages }}',
  testModel: true,
  contextSize: 2048,
  sequences: 1,
  threads: 1,
  loadMs: 0,
};
// -Infinity (a forbidden token) has no JSON form: the wire must bring it back
const RESULT: DistributionsResult = {
  promptTokens: 3,
  tokens: [2],
  steps: [
    {
      token: 2,
      logprob: -0.25,
      top: [{ token: 2, text: 'b', logprob: -0.25 }],
      full: [Number.NEGATIVE_INFINITY, -2.5, -0.25, -1.0000000000000002],
    },
    { top: [{ token: 0, text: 'a', logprob: 0 }], full: [0, Number.NEGATIVE_INFINITY, -40, -700.125] },
  ],
};

const asked: DistributionsRequest[] = [];
const standIn = {
  info: async () => INFO,
  nextTokenDistributions: async (req: DistributionsRequest) => (asked.push(req), RESULT),
  close: async () => undefined,
} as unknown as Engine;

let server: ServeHandle;
beforeAll(async () => {
  server = await startServe({ engine: standIn, alias: `gguf:${FILE}` });
});
afterAll(() => server.close());
afterEach(() => closeLocalEngines());

const SAME = { threads: 1, contextSize: 2048 };

describe('servedEngineFor', () => {
  it('a server of the same file and settings answers distributions as the engine gave them, -Infinity included', async () => {
    const s = await servedEngineFor(server.url, FILE, SAME);
    expect(s?.info.chatTemplate).toBe(INFO.chatTemplate);
    const req = { prompt: 'p', continuation: 'b', topK: 1, full: true };
    expect(await s!.engine.nextTokenDistributions(req)).toEqual(RESULT);
    expect(asked.at(-1)).toEqual(req);
  });

  it('another file, other threads or another context size: not this engine', async () => {
    expect(await servedEngineFor(server.url, '/models/m-q8_0.gguf', SAME)).toBeNull();
    expect(await servedEngineFor(server.url, FILE, { ...SAME, threads: 2 })).toBeNull();
    expect(await servedEngineFor(server.url, FILE, { ...SAME, contextSize: 4096 })).toBeNull();
  });

  it('a server that is not toolgauge serve (no /toolgauge/engine) or does not answer: not an engine', async () => {
    const other = server.url.replace(/:\d+\/v1$/, ':1/v1');
    expect(await servedEngineFor(other, FILE, SAME)).toBeNull();
  });
});

describe('localEngine: the run’s server when it matches, else an engine of its own', () => {
  const own: Array<{ path: string; settings: unknown }> = [];
  const start = async (path: string, settings: { threads: number; contextSize: number }): Promise<HeldEngine> => {
    own.push({ path, settings });
    return { engine: standIn, info: { ...INFO, engine: 'own' }, close: async () => undefined };
  };

  it('the run’s server holds the file with the run’s settings: no engine is started', async () => {
    own.length = 0;
    const source = runEngineSource(FILE, { model: `gguf:${FILE}`, baseUrl: server.url, engine: undefined }, []);
    expect(source.served).toEqual([server.url]);
    const held = await localEngine(FILE, { ...source, settings: SAME }, start);
    expect(own).toEqual([]);
    expect(held.info.engine).toBe('stand-in');
    expect(held.close).toBeUndefined();
  });

  it('a lineup entry’s server counts; a server of another file or other settings does not, and one is started', async () => {
    own.length = 0;
    const lineup = runEngineSource('/models/m-q8_0.gguf', { model: `gguf:${FILE}`, baseUrl: 'x', engine: undefined }, [
      { model: 'gguf:/models/m-q8_0.gguf', baseUrl: server.url },
    ]);
    expect(lineup.served).toEqual([server.url]);
    // the server runs m-f32, not m-q8_0
    expect((await localEngine('/models/m-q8_0.gguf', { ...lineup, settings: SAME }, start)).info.engine).toBe('own');
    const wider = { threads: 1, contextSize: 4096 };
    expect((await localEngine(FILE, { settings: wider, served: [server.url] }, start)).info.engine).toBe('own');
    expect(own).toEqual([
      { path: '/models/m-q8_0.gguf', settings: SAME },
      { path: FILE, settings: wider },
    ]);
  });
});
