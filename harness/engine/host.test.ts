import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../core/hash.ts';
import { fromRoot } from '../core/paths.ts';
import { compareDistributions } from './compare.ts';
import { TEST_TEMPLATES } from './gguf/chat-templates.ts';
import { buildTestModel } from './gguf/test-model.ts';
import { EngineHost } from './host.ts';
import { findNodeLlamaCpp } from './resolve.ts';
import { ENGINE_MISSING_MESSAGE, ENGINE_NAME, EngineError } from './types.ts';

// The engine end to end on generated test models (random weights: these check plumbing, never a model's quality).
// One temp dir of tiny models per file; each EngineHost child loads its model once, one thread.

const installed = !!findNodeLlamaCpp().found;
const PROMPT = '<|im_start|>user\nWhat is the weather in Oslo?<|im_end|>\n<|im_start|>assistant\n';
/** A Hermes tool call with a name from a closed set: a random model can finish it. */
const CALL_GRAMMAR = String.raw`root ::= "<tool_call>\n{\"name\": \"" name "\", \"arguments\": {\"city\": \"" [A-Z] [a-z]? [a-z]? "\"}}\n</tool_call>"
name ::= "get_weather" | "search"`;
const CALL = /^<tool_call>\n(\{.*\})\n<\/tool_call>$/s;

describe('engine missing', () => {
  it('every entry point fails with the one install line when node-llama-cpp cannot be found', async () => {
    const host = new EngineHost({ modelPath: '/nonexistent.gguf' }, { findEngine: () => ({ wrongVersions: [] }) });
    for (const call of [
      () => host.info(),
      () => host.tokenize('x'),
      () => host.complete({ prompt: 'x' }),
      () => host.nextTokenDistributions({ prompt: 'x', continuation: 'y' }),
    ]) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).kind).toBe('missing');
      expect((err as Error).message).toBe(ENGINE_MISSING_MESSAGE);
      expect((err as Error).message).toMatch(/npm run setup:engine/);
      expect((err as Error).message).not.toContain('\n');
    }
    // Bad requests are refused before anything starts, naming the field.
    await expect(host.complete({ prompt: 'x', temperature: -1 })).rejects.toThrow(/^complete: field temperature: /);
    await expect(host.complete({ prompt: 'x', topLogprobs: 21 })).rejects.toThrow(/^complete: field topLogprobs: /);
    await expect(host.complete({ prompt: '' })).rejects.toThrow(/^complete: field prompt: /);
    // Unless its caller has checked it already (toolgauge serve's body schemas): then it goes on, here to find the
    // engine missing.
    await expect(host.complete({ prompt: '', temperature: -1 }, { checked: true })).rejects.toMatchObject({
      kind: 'missing',
    });
    await expect(host.nextTokenDistributions({ prompt: 'x', continuation: [1.5] })).rejects.toThrow(
      /^nextTokenDistributions: field continuation/,
    );
    const wrong = new EngineHost(
      { modelPath: '/x.gguf' },
      { findEngine: () => ({ wrongVersions: ['3.18.0 in /somewhere'] }) },
    );
    await expect(wrong.complete({ prompt: 'x' })).rejects.toThrow(
      /found 3\.18\.0 in \/somewhere, which is not 3\.21\.1/,
    );
  });
});

describe.skipIf(!installed)(
  `llama.cpp engine on test models${installed ? '' : ' (SKIPPED: node-llama-cpp 3.21.1 is not installed; npm run setup:engine)'}`,
  () => {
    let dir: string;
    const path = (name: string) => join(dir, name);
    let f32: EngineHost;
    let q8: EngineHost;
    /** Started through the stand-in child that counts every process started before the model is ready. */
    let f16: EngineHost;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'toolgauge-engine-'));
      for (const type of ['F32', 'F16', 'Q8_0'] as const)
        writeFileSync(path(`m-${type}.gguf`), buildTestModel({ type, template: 'hermes', seed: 3 }));
      writeFileSync(
        path('no-ffn.gguf'),
        buildTestModel({ type: 'F32', template: 'hermes', seed: 3, omitKeys: ['llama.feed_forward_length'] }),
      );
      f32 = new EngineHost({ modelPath: path('m-F32.gguf'), contextSize: 512, sequences: 2 });
      q8 = new EngineHost({ modelPath: path('m-Q8_0.gguf'), contextSize: 512 });
      f16 = new EngineHost(
        { modelPath: path('m-F16.gguf'), contextSize: 256 },
        { childScript: fromRoot('fixtures', 'engine', 'counting-child.mjs') },
      );
    });

    afterAll(async () => {
      await Promise.all([f32?.close(), q8?.close(), f16?.close()]);
      rmSync(dir, { recursive: true, force: true });
    });

    it('loads F32, F16 and Q8_0 files, names the engine and the file, and generates', async () => {
      for (const [host, type] of [
        [f32, 'F32'],
        [f16, 'F16'],
        [q8, 'Q8_0'],
      ] as const) {
        const info = await host.info();
        expect(info).toMatchObject({
          engine: ENGINE_NAME,
          architecture: 'llama',
          tensorType: type,
          testModel: true,
          threads: 1,
          eosToken: '<|im_end|>',
        });
        expect(info.llamaCppBuild).toMatch(/llama\.cpp/);
        expect(info.chatTemplateSha256).toBe(sha256(TEST_TEMPLATES.hermes.jinja));
        const r = await host.complete({ prompt: PROMPT, maxTokens: 12 });
        expect(r.tokens.length).toBeGreaterThan(0);
        expect(r.usage.promptTokens).toBe((await host.tokenize(PROMPT)).length);
        expect(r.usage.completionTokens).toBe(r.tokens.length);
        expect(await host.detokenize(r.tokens)).toBe(r.text);
      }
    });

    it('tokenizes special tokens as single tokens (unless told not to parse them) and round-trips text', async () => {
      const [start] = await f32.tokenize('<|im_start|>');
      expect(await f32.tokenize('<|im_start|>')).toHaveLength(1);
      expect((await f32.tokenize('<|im_start|>', { specialTokens: false })).length).toBeGreaterThan(1);
      const toks = await f32.tokenize('<|im_start|>user\nnames: Ünïcödé');
      expect(toks[0]).toBe(start);
      expect(await f32.detokenize(toks)).toBe('<|im_start|>user\nnames: Ünïcödé');
    });

    it('a GBNF grammar forces every output into a Hermes tool call; free outputs are not calls', async () => {
      const seeds = [1, 2, 3, 4, 5];
      const forced = await Promise.all(
        seeds.map((seed) =>
          f32.complete({ prompt: PROMPT, grammar: CALL_GRAMMAR, temperature: 1, seed, maxTokens: 120 }),
        ),
      );
      for (const r of forced) {
        expect(r.finishReason).toBe('stop');
        const m = CALL.exec(r.text);
        expect(m, r.text).not.toBeNull();
        expect(['get_weather', 'search']).toContain((JSON.parse(m![1]!) as { name: string }).name);
      }
      const free = await Promise.all(
        seeds.map((seed) => f32.complete({ prompt: PROMPT, temperature: 1, seed, maxTokens: 60 })),
      );
      expect(free.filter((r) => CALL.test(r.text)).length).toBe(0);
    });

    it('an invalid grammar is a one-line grammar error and the engine keeps serving', async () => {
      const err = await f32.complete({ prompt: PROMPT, grammar: 'root ::= ("a" | ' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).kind).toBe('grammar');
      expect((err as Error).message).toMatch(/^llama\.cpp refused the grammar: /);
      expect((err as Error).message).not.toContain('\n');
      expect((await f32.complete({ prompt: PROMPT, maxTokens: 3 })).tokens.length).toBeGreaterThan(0);
      await expect(f32.checkGrammar(CALL_GRAMMAR)).resolves.toBeUndefined();
      await expect(f32.checkGrammar('root ::= undefinedrule')).rejects.toMatchObject({
        kind: 'grammar',
        message: expect.stringMatching(/Undefined rule identifier 'undefinedrule'/),
      });
    });

    it('is deterministic: temperature 0 repeats, a sampling seed repeats, another seed differs; parallel sequences agree with serial', async () => {
      const a = await f32.complete({ prompt: PROMPT, maxTokens: 24 });
      const b = await f32.complete({ prompt: PROMPT, maxTokens: 24 });
      expect(b.tokens).toEqual(a.tokens);
      // The text is made once at the end without stop strings or streaming, and step by step with either: the same.
      const chunks: string[] = [];
      const streamed = await f32.complete(
        { prompt: PROMPT, maxTokens: 24, stop: ['\u0000never'] },
        { onChunk: (c) => chunks.push(c.text) },
      );
      expect(streamed.text).toBe(a.text);
      expect(chunks.join('')).toBe(a.text);
      const s = (seed: number) => f32.complete({ prompt: PROMPT, temperature: 1, seed, maxTokens: 24 });
      const [x, y, z] = await Promise.all([s(11), s(11), s(12)]);
      expect(y!.tokens).toEqual(x!.tokens);
      expect(z!.tokens).not.toEqual(x!.tokens);
    });

    it('token bias: "never" bans the greedy choice, a large bias forces a token', async () => {
      const first = (await f32.complete({ prompt: PROMPT, maxTokens: 1 })).tokens[0]!;
      const banned = await f32.complete({ prompt: PROMPT, maxTokens: 1, tokenBias: [{ token: first, bias: 'never' }] });
      expect(banned.tokens[0]).not.toBe(first);
      const target = (await f32.tokenize('Q', { specialTokens: false }))[0]!;
      const forced = await f32.complete({ prompt: PROMPT, maxTokens: 1, tokenBias: [{ token: 'Q', bias: 100 }] });
      expect(forced.tokens[0]).toBe(target);
      // End-of-generation tokens too (node-llama-cpp's own TokenBias.set skips them), by their special text.
      const ended = await f32.complete({
        prompt: PROMPT,
        maxTokens: 20,
        tokenBias: [{ token: '<|im_end|>', bias: 100 }],
      });
      expect(ended).toMatchObject({ text: '', finishReason: 'stop', tokens: [] });
      await expect(f32.complete({ prompt: PROMPT, tokenBias: [{ token: 99999, bias: 1 }] })).rejects.toThrow(
        /token bias: token 99999 is not in the vocabulary/,
      );
    });

    it('an aborted completion is a request error and frees its sequence', async () => {
      const ac = new AbortController();
      const long = f32.complete(
        { prompt: PROMPT, maxTokens: 400, temperature: 1, seed: 9 },
        { onChunk: () => ac.abort(), signal: ac.signal },
      );
      await expect(long).rejects.toThrow('the request was aborted');
      const after = await Promise.all(
        [1, 2].map((seed) => f32.complete({ prompt: PROMPT, maxTokens: 3, temperature: 1, seed })),
      );
      expect(after.every((r) => r.tokens.length > 0)).toBe(true);
    });

    it('logprobs: one per token, the chosen token among its top-k, sorted; stop strings end the text before them', async () => {
      const r = await f32.complete({ prompt: PROMPT, maxTokens: 10, topLogprobs: 3 });
      expect(r.logprobs).toHaveLength(r.tokens.length);
      for (const lp of r.logprobs!) {
        expect(lp.logprob).toBeLessThanOrEqual(0);
        expect(lp.top).toHaveLength(3);
        expect(lp.top[0]!.token).toBe(lp.token); // greedy
        expect(lp.top.map((t) => t.logprob)).toEqual([...lp.top.map((t) => t.logprob)].sort((p, q) => q - p));
      }
      const whole = (await f32.complete({ prompt: PROMPT, maxTokens: 30, temperature: 1, seed: 4 })).text;
      const stop = whole.slice(8, 10);
      const cut = await f32.complete({ prompt: PROMPT, maxTokens: 30, temperature: 1, seed: 4, stop: [stop] });
      expect(cut.text).toBe(whole.slice(0, whole.indexOf(stop)));
      expect(cut.finishReason).toBe('stop');
      const chunks: string[] = [];
      const tokenChunks: number[][] = [];
      const streamed = await f32.complete(
        { prompt: PROMPT, maxTokens: 30, temperature: 1, seed: 4, stop: [stop] },
        { onChunk: (c) => (chunks.push(c.text), tokenChunks.push(c.tokens)) },
      );
      expect(chunks.join('')).toBe(streamed.text);
      expect(tokenChunks.flat()).toEqual(streamed.tokens);
      expect(streamed.text).toBe(cut.text);
    });

    it('teacher-forced distributions of the same seed in F32 and Q8_0 mostly agree on the top token', async () => {
      const continuation =
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call><|im_end|>';
      // A completion of the same prompt first: the sequence then holds the prompt, and the distributions must still
      // start at the prompt's last token.
      await f32.complete({ prompt: PROMPT, maxTokens: 4 });
      const [a, b] = await Promise.all(
        [f32, q8].map((h) => h.nextTokenDistributions({ prompt: PROMPT, continuation, topK: 5, full: true })),
      );
      expect(a!.tokens).toEqual(await f32.tokenize(continuation));
      expect(a!.steps).toHaveLength(a!.tokens.length + 1);
      a!.steps.slice(0, -1).forEach((s, i) => expect(s.token).toBe(a!.tokens[i]));
      // The full distribution is a distribution, and the chosen token's logprob is read from it.
      const mass = a!.steps[0]!.full!.reduce((sum, lp) => sum + Math.exp(lp), 0);
      expect(mass).toBeCloseTo(1, 4);
      expect(a!.steps[0]!.logprob).toBeCloseTo(a!.steps[0]!.full![a!.tokens[0]!]!, 6);
      const c = compareDistributions(a!, b!);
      expect(c.approximate).toBe(false);
      expect(c.top1Agreement).toBeGreaterThanOrEqual(0.8);
      expect(c.meanKl).toBeLessThan(0.05);
      // An empty continuation: the one distribution after the prompt, whose top token is the greedy choice.
      const after = await f32.nextTokenDistributions({ prompt: PROMPT, continuation: '', topK: 1 });
      expect(after.steps).toHaveLength(1);
      expect(after.steps[0]!.top[0]!.token).toBe((await f32.complete({ prompt: PROMPT, maxTokens: 1 })).tokens[0]);
      const self = compareDistributions(a!, a!);
      expect(self.meanKl).toBeCloseTo(0, 9);
    });

    it('a crash of the child rejects the pending requests with a one-line error; the next request starts a new child', async () => {
      const host = q8;
      {
        const before = host.starts;
        await host.start();
        const pending = host.complete({ prompt: PROMPT, maxTokens: 200, temperature: 1, seed: 1 });
        const crashed = await host.crashForTest().then(
          () => undefined,
          (e: unknown) => e,
        );
        const lost = await pending.then(
          () => undefined,
          (e: unknown) => e,
        );
        for (const err of [crashed, lost].filter(Boolean)) {
          expect(err).toBeInstanceOf(EngineError);
          expect((err as EngineError).kind).toBe('crash');
          expect((err as Error).message).toMatch(/engine process was killed by SIGABRT/);
          expect((err as Error).message).not.toContain('\n');
        }
        expect(crashed).toBeDefined();
        expect((await host.complete({ prompt: PROMPT, maxTokens: 3 })).tokens.length).toBeGreaterThan(0);
        expect(host.starts).toBe(before + 1);
      }
    });

    it("starts no process besides the child: the prebuilt binary loads without getLlama's test process", async () => {
      // getLlama of 3.21.1 forks a Node process on Linux to test-load the binary first (about 0.35 CPU-s a start);
      // the child is that isolation already (harness/engine/load-llama.mjs). The F16 host's stand-in child counts
      // every process started before the model is ready (one child fewer than a host of its own).
      await f16.start();
      expect(JSON.parse(readFileSync(`${path('m-F16.gguf')}.spawned`, 'utf8'))).toEqual([]);
      expect((await f16.complete({ prompt: PROMPT, maxTokens: 3 })).tokens.length).toBeGreaterThan(0);
    });

    it('a file llama.cpp aborts on (no feed_forward_length) is a one-line load error naming the file, not a dead run', async () => {
      const host = new EngineHost({ modelPath: path('no-ffn.gguf'), contextSize: 256 });
      try {
        const err = await host.complete({ prompt: PROMPT }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(EngineError);
        expect((err as EngineError).kind).toBe('load');
        expect((err as Error).message).toContain(`${path('no-ffn.gguf')}: llama.cpp could not load the model`);
        expect((err as Error).message).not.toContain('\n');
      } finally {
        await host.close();
      }
    });
  },
);
